package dev.ringer.kit

import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** The façade's small state files: resume points, the installation id and the FCM token's age. */
class DeviceStateFilesTest {
    private val directory: File = Files.createTempDirectory("ringer-state").toFile()

    @After
    fun removeDirectory() {
        directory.deleteRecursively()
    }

    @Test
    fun resumePointsAreKeptPerUserAcrossARestartAndNeverMoveBack() {
        val file = File(directory, "resume.json")
        FileResumePoints(file).save("bob", 41)
        FileResumePoints(file).save("carol", 7)
        FileResumePoints(file).save("bob", 40)
        val reopened = FileResumePoints(file)
        assertEquals(41L, reopened.load("bob"))
        assertEquals(7L, reopened.load("carol"))
        assertNull("another user never resumes bob's stream", reopened.load("dave"))
        reopened.forget("bob")
        assertNull(FileResumePoints(file).load("bob"))
        assertEquals(7L, FileResumePoints(file).load("carol"))
    }

    @Test
    fun aCorruptResumePointFileReadsAsNoneAndIsReplacedOnTheNextSave() {
        val file = File(directory, "resume.json")
        file.writeText("{\"bob\": 4")
        assertNull(FileResumePoints(file).load("bob"))
        FileResumePoints(file).save("bob", 5)
        assertEquals(5L, FileResumePoints(file).load("bob"))
    }

    @Test
    fun theInstallationIdIsALowercaseUuidKeptUntilItsFileIsGone() {
        val file = File(directory, "ringer/installation-id")
        val id = InstallationId.load(file)
        assertEquals(id, CallIds.normalize(id))
        assertEquals("the same install keeps its id", id, InstallationId.load(file))
        file.delete()
        assertNotEquals("cleared data is a new install", id, InstallationId.load(file))
    }

    @Test
    fun anInstallationIdAtItsFormerPathMovesWithItsValueAndTheOldFileGoesOnlyOnceTheNewOneIsWritten() {
        val former = File(directory, "files/ringer/installation-id")
        val kept = "9F0C2A9E-0000-4000-8000-000000000001"
        former.parentFile.mkdirs()
        former.writeText(kept)
        // The new place cannot be written (its folder is a file): the id stays where it is, and is still the id.
        val blocked = File(directory, "blocked")
        blocked.writeText("")
        assertEquals(kept.toLowerCase(), InstallationId.load(File(blocked, "ringer/installation-id"), formerFile = former))
        assertTrue("not deleted before the new file exists", former.isFile)

        val file = File(directory, "no_backup/ringer/installation-id")
        assertEquals("the same id, moved", kept.toLowerCase(), InstallationId.load(file, formerFile = former))
        assertEquals(kept.toLowerCase(), file.readText())
        assertFalse("the backed-up copy is gone", former.exists())
        assertEquals(kept.toLowerCase(), InstallationId.load(file, formerFile = former))
    }

    @Test
    fun anIdAtTheNewPathWinsOverOneLeftAtTheFormerPath() {
        val file = File(directory, "no_backup/installation-id")
        val id = InstallationId.load(file)
        val former = File(directory, "installation-id")
        former.writeText("9f0c2a9e-0000-4000-8000-000000000002")
        assertEquals(id, InstallationId.load(file, formerFile = former))
    }

    @Test
    fun aGarbledInstallationIdFileIsReplacedByAFreshId() {
        val file = File(directory, "installation-id")
        file.writeText("not-a-uuid")
        val id = InstallationId.load(file)
        assertTrue(CallIds.isUuid(id))
        assertEquals(id, file.readText())
    }

    @Test
    fun theTokenAgeIsWhenTheTokenWasFirstSeenAndARotationResetsIt() {
        val file = File(directory, "token-age.json")
        assertEquals(1_000L, PushTokenAge(file).observe("token-a", 1_000))
        assertEquals("the same token after a relaunch keeps its age", 1_000L, PushTokenAge(file).observe("token-a", 9_000))
        assertEquals("a rotated token is new", 10_000L, PushTokenAge(file).observe("token-b", 10_000))
    }

    @Test
    fun theTokenAgeFileHoldsNoToken() {
        val file = File(directory, "token-age.json")
        PushTokenAge(file).observe("e2eSECRET:APA91bSECRET", 1_000)
        assertFalse(file.readText().contains("SECRET"))
    }
}
