package dev.ringer.kit

import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files

class PendingActionStoreTest {
    private val directory: File = Files.createTempDirectory("ringer-pending").toFile()
    private val file = File(directory, "state/pending-actions.json")
    private val decline = PendingCallAction(PendingCallAction.Kind.DECLINE, "c1", "d1", 1_767_225_600_123)
    private val end = PendingCallAction(PendingCallAction.Kind.END, "c2", "d1", 1_767_225_601_000)

    @After
    fun removeDirectory() {
        directory.deleteRecursively()
    }

    @Test
    fun actionsSurviveARestartAsANewStoreOnTheSameFile() {
        FilePendingActionStore(file).save(listOf(decline, end))
        assertEquals(listOf(decline, end), FilePendingActionStore(file).load())
    }

    @Test
    fun aMissingFileLoadsAsEmpty() {
        assertEquals(emptyList<PendingCallAction>(), FilePendingActionStore(file).load())
    }

    @Test
    fun aCorruptFileLoadsAsEmptyAndIsReplacedByTheNextSave() {
        file.parentFile.mkdirs()
        file.writeText("[{\"kind\":\"decline\",\"call_")
        val store = FilePendingActionStore(file)
        assertEquals(emptyList<PendingCallAction>(), store.load())
        store.save(listOf(end))
        assertEquals(listOf(end), FilePendingActionStore(file).load())
    }

    @Test
    fun aFileOfTheWrongShapeLoadsAsEmpty() {
        file.parentFile.mkdirs()
        file.writeText("{\"kind\":\"decline\"}")
        assertEquals(emptyList<PendingCallAction>(), FilePendingActionStore(file).load())
        file.writeBytes(byteArrayOf(0, -1, -2, 10))
        assertEquals(emptyList<PendingCallAction>(), FilePendingActionStore(file).load())
    }

    @Test
    fun unreadableEntriesAreSkippedAndTheRestKept() {
        file.parentFile.mkdirs()
        file.writeText("[{\"kind\":\"transfer\",\"call_id\":\"c0\",\"device_id\":\"d1\",\"created_at_ms\":1}," +
            "{\"kind\":\"end\",\"call_id\":7}," + decline.toJson() + "]")
        assertEquals(listOf(decline), FilePendingActionStore(file).load())
    }

    @Test
    fun saveLeavesNoTemporaryFileBehindAndAnEmptyListIsStored() {
        val store = FilePendingActionStore(file)
        store.save(listOf(decline))
        store.save(emptyList())
        assertEquals(emptyList<PendingCallAction>(), FilePendingActionStore(file).load())
        assertEquals(listOf("pending-actions.json"), file.parentFile.list()!!.toList())
    }

    @Test
    fun aFailedWriteKeepsThePreviousListAndDoesNotThrow() {
        val store = FilePendingActionStore(file)
        store.save(listOf(decline))
        // A directory where the temporary file would go makes the write fail.
        assertTrue(File(file.parentFile, file.name + ".tmp").mkdir())
        store.save(listOf(end))
        assertEquals(listOf(decline), FilePendingActionStore(file).load())
    }

    @Test
    fun theInMemoryStoreKeepsACopy() {
        val store = InMemoryPendingActionStore()
        val list = mutableListOf(decline)
        store.save(list)
        list.add(end)
        assertEquals(listOf(decline), store.load())
    }
}
