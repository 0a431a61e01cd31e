package dev.ringer.kit

import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** Who each Core-Telecom call was with, kept for the system call log's call back (`ACTION_CALL_BACK`'s `EXTRA_UUID`). */
class CallBackLogTest {
    private val folder: File = Files.createTempDirectory("ringer-call-back").toFile()
    private val file = File(folder, "call-back-log.json")

    @After fun tearDown() { folder.deleteRecursively() }

    @Test fun aRememberedCallIsFoundByTelecomsIdAfterARelaunch() {
        CallBackLog(file).remember("0b6c", "alice", hasVideo = false)
        CallBackLog(file).remember("7e21", "carol", hasVideo = true)
        assertEquals(CallBackRequest("alice", false), CallBackLog(file).find("0b6c"))
        assertEquals(CallBackRequest("carol", true), CallBackLog(file).find("7e21"))
        assertNull(CallBackLog(file).find("ffff"))
    }

    @Test fun theNewestCallsAreKeptEachIdOnce() {
        val log = CallBackLog(file, capacity = 2)
        log.remember("a", "alice", false)
        log.remember("b", "bob", false)
        log.remember("a", "alice", true)
        log.remember("c", "carol", false)
        assertNull("the oldest went", log.find("b"))
        assertEquals(CallBackRequest("alice", true), log.find("a"))
        assertEquals(CallBackRequest("carol", false), log.find("c"))
    }

    @Test fun anUnreadableFileIsAnEmptyLogAndIsReplacedByTheNextCall() {
        file.writeText("{not json")
        val log = CallBackLog(file)
        assertNull(log.find("a"))
        log.remember("a", "alice", false)
        assertEquals(CallBackRequest("alice", false), CallBackLog(file).find("a"))
    }
}
