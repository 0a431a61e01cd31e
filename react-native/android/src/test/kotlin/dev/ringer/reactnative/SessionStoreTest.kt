package dev.ringer.reactnative

import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** The login and the chosen server, kept across launches; a bad file reads as nothing stored. */
class SessionStoreTest {
    private val folder: File = File(Files.createTempDirectory("ringer-rn-session").toFile(), "ringer")

    @After
    fun tearDown() {
        folder.parentFile.deleteRecursively()
    }

    @Test
    fun aLoginSurvivesTheProcessUntilLogout() {
        assertNull(SessionStore(folder).load())
        assertTrue(SessionStore(folder).save(SessionStore.Session("token-1", "bob")))
        assertEquals(SessionStore.Session("token-1", "bob"), SessionStore(folder).load())
        SessionStore(folder).save(SessionStore.Session("token-2", "bob"))
        assertEquals("token-2", SessionStore(folder).load()?.token)
        SessionStore(folder).clear()
        assertNull(SessionStore(folder).load())
        assertFalse(File(folder, "session.json").exists())
    }

    @Test
    fun theTokenIsNeverInTheSessionsText() {
        val session = SessionStore.Session("secret-token", "bob")
        assertFalse(session.toString().contains("secret-token"))
    }

    @Test
    fun aCorruptOrPartialFileReadsAsNobodyLoggedIn() {
        folder.mkdirs()
        for (text in listOf("", "{", "[]", "{\"token\":\"t\"}", "{\"token\":\"\",\"user_id\":\"bob\"}", "{\"token\":1,\"user_id\":\"bob\"}")) {
            File(folder, "session.json").writeText(text)
            assertNull(text, SessionStore(folder).load())
        }
        // A write that never finished leaves its ".new" file beside the last whole one, which is read.
        SessionStore(folder).save(SessionStore.Session("token-1", "bob"))
        File(folder, "session.json.new").writeText("{\"tok")
        assertEquals("bob", SessionStore(folder).load()?.userId)
    }

    @Test
    fun aSessionKeepsTheServerItWasMadeOnAndAnOlderFileReadsWithoutOne() {
        SessionStore(folder).save(SessionStore.Session("token-1", "bob", "https://ringer.example.com"))
        assertEquals("https://ringer.example.com", SessionStore(folder).load()?.server)
        File(folder, "session.json").writeText("{\"token\":\"token-1\",\"user_id\":\"bob\"}")
        assertEquals(SessionStore.Session("token-1", "bob", null), SessionStore(folder).load())
    }

    @Test
    fun theChosenServerIsKeptForTheNextLaunch() {
        val store = SessionStore(folder)
        assertNull(store.loadServer())
        store.saveServer("https://ringer.example.com")
        assertEquals("https://ringer.example.com", SessionStore(folder).loadServer())
        store.saveServer("https://staging.example.com")
        assertEquals("https://staging.example.com", SessionStore(folder).loadServer())
        store.clearServer()
        assertNull(SessionStore(folder).loadServer())
    }
}
