package dev.ringer.reactnative

import dev.ringer.reactnative.ReactNativeVectors.canonical
import org.json.JSONObject
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** The call history: one entry per call that rang or was placed, written when it ends, newest first, at most 100. */
class CallHistoryTest {
    private val folder: File = Files.createTempDirectory("ringer-rn-history").toFile()
    private val file = File(folder, "ringer/call-history.json")
    private var clock = 1_800_000_000_000L

    @After
    fun tearDown() {
        folder.deleteRecursively()
    }

    private fun history() = CallHistory(file, { clock })

    private fun incoming(callId: String) = JSONObject(
        "{\"type\":\"incoming\",\"callId\":\"$callId\",\"caller\":{\"id\":\"alice\",\"name\":\"Alice\"},\"hasVideo\":true}")

    private fun ended(callId: String, reason: String, serverReason: String?) = JSONObject().put("type", "ended")
        .put("callId", callId).put("reason", reason).put("serverReason", serverReason ?: JSONObject.NULL)

    @Test
    fun anAnsweredCallIsWrittenWhenItEndsAndReadByTheNextProcess() {
        val history = history()
        history.record(incoming("c1"))
        clock += 3_000
        history.record(JSONObject("{\"type\":\"accepted\",\"callId\":\"c1\",\"direction\":\"incoming\",\"media\":{\"url\":\"u\",\"token\":\"t\"}}"))
        assertEquals("nothing is written while the call is up", 0, history.newest(10).size)
        clock += 60_000
        history.record(ended("c1", "remote_ended", "ended"))
        val expected = "{\"answered\":true,\"callId\":\"c1\",\"direction\":\"incoming\",\"endedAt\":1800000063000," +
            "\"hasVideo\":true,\"peer\":{\"id\":\"alice\",\"name\":\"Alice\"},\"reason\":\"remote_ended\"," +
            "\"serverReason\":\"ended\",\"startedAt\":1800000000000}"
        assertEquals(expected, canonical(history.newest(10).single()))
        assertEquals(expected, canonical(history().newest(10).single()))
    }

    @Test
    fun anOutgoingCallNobodyAnsweredIsKeptUnanswered() {
        val history = history()
        history.record(JSONObject("{\"type\":\"outgoing\",\"callId\":\"c2\",\"callee\":{\"id\":\"bob\",\"name\":null},\"hasVideo\":false}"))
        history.record(ended("c2", "local", null))
        val entry = history.newest(1).single()
        assertEquals(listOf("outgoing", false, "bob", JSONObject.NULL, JSONObject.NULL),
                     listOf(entry.get("direction"), entry.get("answered"), entry.getJSONObject("peer").get("id"),
                            entry.getJSONObject("peer").get("name"), entry.get("serverReason")))
    }

    @Test
    fun anEndForACallThatNeverRangHereLeavesNoEntry() {
        val history = history()
        history.record(ended("c3", "remote_ended", "cancelled"))
        history.record(JSONObject().put("type", "connectionChanged").put("status", "lost"))
        assertEquals(0, history.newest(10).size)
    }

    @Test
    fun theNewest100AreKeptNewestFirst() {
        val history = history()
        for (index in 1..105) {
            history.record(incoming("c$index"))
            history.record(ended("c$index", "unanswered", "unanswered"))
        }
        val kept = history().newest(1000)
        assertEquals(100, kept.size)
        assertEquals(listOf("c105", "c104"), kept.take(2).map { it.getString("callId") })
        assertEquals("c6", kept.last().getString("callId"))
        assertEquals(listOf("c105", "c104", "c103"), history.newest(3).map { it.getString("callId") })
    }

    @Test
    fun aCorruptFileReadsAsAnEmptyHistory() {
        file.parentFile.mkdirs()
        file.writeText("{\"entries\":[1,")
        assertEquals(0, history().newest(10).size)
        file.writeText("{\"entries\":[1,{\"callId\":\"c9\"}]}")
        assertEquals(listOf("c9"), history().newest(10).map { it.getString("callId") })
    }
}
