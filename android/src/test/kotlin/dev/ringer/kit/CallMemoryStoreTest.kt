package dev.ringer.kit

import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.nio.file.Files

/** The call memory survives the process in its file, whole or not at all, and a bad file never stops a call ringing. */
class CallMemoryStoreTest {
    private val directory: File = Files.createTempDirectory("ringer-memory").toFile()
    private val file = File(directory, "call-memory.json")
    private val callA = "4f0c2a9e-0000-4000-8000-00000000000a"
    private val callB = "4f0c2a9e-0000-4000-8000-00000000000b"
    private val callC = "4f0c2a9e-0000-4000-8000-00000000000c"

    @After
    fun removeDirectory() {
        directory.deleteRecursively()
    }

    private val memory = PhoneCallMachine.Memory(
        mapOf(callA to PhoneCallMachine.EndedUnseen(CallEndReason.ANSWER_NOT_DELIVERED, 1_800_000_000_000L),
              callC to PhoneCallMachine.EndedUnseen(CallEndReason.FAILED, 1_800_000_030_000L, shownHere = true)),
        mapOf(callB to PhoneCallMachine.UnconfirmedAnswer(Party("alice", "Alice"), "bob", true, 1_800_000_030_000L,
                                                          1_800_000_029_500L)))

    @Test
    fun aSavedMemoryIsReadBackWholeByANewStore() {
        FileCallMemoryStore(file).save(memory)
        assertEquals(memory, FileCallMemoryStore(file).load())
        val anonymous = PhoneCallMachine.Memory(unconfirmedAnswers = mapOf(callB to
            PhoneCallMachine.UnconfirmedAnswer(Party("alice"), null, false, 1L, 2L)))
        FileCallMemoryStore(file).save(anonymous)
        assertEquals("no callee and no caller name are kept as such", anonymous, FileCallMemoryStore(file).load())
        // A group call's answer keeps what the call screen showed of the group, so a relaunch shows it again.
        val group = PhoneCallMachine.Memory(unconfirmedAnswers = mapOf(callB to
            PhoneCallMachine.UnconfirmedAnswer(Party("alice"), "bob", false, 1L, 2L, PushGroup(3, listOf(Party("carol", "Carol"))))))
        FileCallMemoryStore(file).save(group)
        assertEquals(group, FileCallMemoryStore(file).load())
        assertTrue("no temporary file is left behind", directory.list()!!.toList() == listOf("call-memory.json"))
    }

    @Test
    fun aMissingOrCorruptFileReadsAsAnEmptyMemory() {
        assertEquals(PhoneCallMachine.Memory(), FileCallMemoryStore(file).load())
        file.writeText("{\"ended_calls\": {")
        assertEquals(PhoneCallMachine.Memory(), FileCallMemoryStore(file).load())
        FileCallMemoryStore(file).save(memory)
        assertEquals(memory, FileCallMemoryStore(file).load())
    }

    /** An entry this version cannot read is skipped; the others are kept. */
    @Test
    fun anUnreadableEntryIsSkipped() {
        file.writeText("""{"ended_calls": {"$callA": {"reason": "remote_ended", "learned_at_ms": 5}, "$callB": {"reason": 3}},
                          "unconfirmed_answers": {"$callB": {"caller": {"name": "no id"}, "has_video": false,
                                                   "expires_at_ms": 1, "local_deadline_ms": 2}}}""")
        assertEquals(PhoneCallMachine.Memory(mapOf(callA to PhoneCallMachine.EndedUnseen(CallEndReason.REMOTE_ENDED, 5L))),
                     FileCallMemoryStore(file).load())
    }

    /** A new process's machine from the stored memory: the answer is shown and sent again, the ended call stays ended. */
    @Test
    fun aMachineBuiltFromTheStoredMemoryTakesItUpAtLaunch() {
        FileCallMemoryStore(file).save(memory)
        val machine = PhoneCallMachine("bob-pixel", 0, FileCallMemoryStore(file).load())
        val effects = machine.handle(PhoneCallInput.Launched, 1_800_000_001_000L)
        assertEquals(listOf(PhoneCallEffect.ReportIncoming(callB, IncomingCallReport(callB, Party("alice", "Alice"), true)),
                            PhoneCallEffect.ArmDeadline(callB, 1_800_000_031_500L), PhoneCallEffect.SendAccept(callB)), effects)
        assertEquals(CallEndReason.ANSWER_NOT_DELIVERED, machine.endedUnseen[callA]?.reason)
    }
}
