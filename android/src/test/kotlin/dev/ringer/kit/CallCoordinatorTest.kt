package dev.ringer.kit

import dev.ringer.kit.CallCoordinator.Observation
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * FCM data messages, stream events and the user's answers reach the call UI as the rules say (ported from
 * RingerKit's DataMessageTests, CallCoordinatorPushTests and LostRaceTests): a message that rings is reported
 * before handleDataMessage returns, one that cannot ring shows nothing and leaves nothing ringing, one call
 * per id, an answer before login is kept, and remote endings close a call exactly once.
 */
class CallCoordinatorTest {
    @Test
    fun aRingingDataMessageIsReportedBeforeHandleDataMessageReturnsWithTheCallIdAsConnectionKey() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        val outcome = phone.coordinator.handleDataMessage(phone.ringing(callId))
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING), outcome)
        assertEquals(listOf(callId), phone.ui.reports.map { it.callId })
        assertEquals("Alice", phone.ui.reports[0].caller.name)
        assertTrue(phone.ui.reports[0].hasVideo)
        assertTrue(phone.ui.ended.isEmpty())
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/ringing"))
        assertTrue(phone.observations.all.contains(Observation.Ringing(callId)))
    }

    @Test
    fun anUpperCaseCallIdIsTheSameCall() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(upper(callId))))
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.DUPLICATE),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
        assertEquals(1, phone.ui.reports.size)
    }

    /** Every kind of message that cannot ring is answered at once, shows nothing and leaves no call ringing. */
    @Test
    fun everyMessageThatCannotRingShowsNothingAndLeavesNothingRinging() {
        val callId = CoordinatorHarness.newCallId()
        fun check(name: String, expected: DataMessageOutcome, setUp: (CoordinatorHarness) -> Map<String, String>) {
            val phone = CoordinatorHarness().connect()
            phone.server.ring(callId)
            val data = setUp(phone)
            val reportsBefore = phone.ui.reports.size
            val observedBefore = phone.observations.all.size
            val outcome = phone.coordinator.handleDataMessage(data)
            assertEquals(name, expected, outcome)
            assertEquals("$name: nothing new on screen", reportsBefore, phone.ui.reports.size)
            assertTrue("$name: nothing left ringing", phone.ui.ringingOrUp.isEmpty())
            val observed = phone.observations.all.drop(observedBefore)
            // Only the disposition is observed: no ringing, no ending, no request failure.
            val disposition = (expected as? DataMessageOutcome.Call)?.disposition
            assertEquals(name, listOfNotNull(disposition),
                         observed.map<Observation, Any> { if (it is Observation.PushReported) it.disposition else it })
            assertTrue("$name: no request for it", phone.server.requests.none { it.contains(callId) && !it.endsWith("/ringing") })
        }
        check("expired on the server's clock", DataMessageOutcome.Call(callId, PushDisposition.EXPIRED)) {
            it.ringing(callId, expiresInMs = -1)
        }
        check("for another user", DataMessageOutcome.Call(callId, PushDisposition.OTHER_USER)) {
            it.ringing(callId, callee = "carol")
        }
        // Cut off mid-JSON it is no longer recognisably Ringer's (as in RingerKit): ignored, still showing nothing.
        check("truncated mid-JSON", DataMessageOutcome.Ignored) {
            val full = it.ringing(callId).getValue("ringer")
            mapOf("ringer" to full.substring(0, full.length / 2))
        }
        check("missing its caller", DataMessageOutcome.Call(callId, PushDisposition.UNREADABLE)) {
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"$callId\"}")
        }
        check("a call id that is no UUID", DataMessageOutcome.Call(null, PushDisposition.UNREADABLE)) {
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"not-a-uuid\"}")
        }
        check("for a call cancelled before its message came", DataMessageOutcome.Call(callId, PushDisposition.ALREADY_ENDED)) {
            it.coordinator.handleDataMessage(it.update(EventType.CALL_CANCELLED, callId))
            it.ringing(callId)
        }
        check("for a call already over here", DataMessageOutcome.Call(callId, PushDisposition.ALREADY_ENDED)) {
            it.coordinator.handleDataMessage(it.ringing(callId))
            it.coordinator.handleDataMessage(it.update(EventType.CALL_ANSWERED_ELSEWHERE, callId))
            it.ringing(callId)
        }
    }

    @Test
    fun aRingingMessageForALoggedOutPhoneShowsNothing() {
        val phone = CoordinatorHarness()
        phone.coordinator.connect(null)
        val callId = CoordinatorHarness.newCallId()
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.LOGGED_OUT),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
        assertTrue(phone.ui.reports.isEmpty())
        // An answer for it fails at once instead of waiting for a server it may never reach.
        assertEquals(false, phone.answer(callId)())
    }

    /** The app's own data messages and Ringer bodies this version does not act on change nothing, and nothing throws. */
    @Test
    fun messagesThatAreNotRingersAreIgnoredAndNeverThrow() {
        val phone = CoordinatorHarness().connect()
        val others = listOf(
            emptyMap(), mapOf("chat" to "hello"), mapOf("ringer" to "not json"), mapOf("ringer" to "[1,2]"),
            mapOf("ringer" to ""), mapOf("ringer" to "{\"v\":1}"), mapOf("ringer" to "{\"type\":7}"),
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.accepted\",\"call_id\":\"x\"}"),
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.cancelled\"}"),
            mapOf("ringer" to "{\"type\":\"call.cancelled\",\"call_id\":\"x\"}"),
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.cancelled\",\"call_id\":7}"))
        for (data in others) assertEquals(data.toString(), DataMessageOutcome.Ignored, phone.coordinator.handleDataMessage(data))
        assertTrue(phone.ui.reports.isEmpty())
        assertTrue(phone.ui.ended.isEmpty())
    }

    @Test
    fun theSameCallByDataMessageThenSocketRingsOnce() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
        phone.coordinator.handle(phone.event(EventType.CALL_INCOMING, callId))
        assertEquals(listOf(callId), phone.ui.reports.map { it.callId })
        assertEquals(1, phone.observations.all.count { it == Observation.Ringing(callId) })
    }

    @Test
    fun theSameCallBySocketThenDataMessageRingsOnce() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handle(phone.event(EventType.CALL_INCOMING, callId))
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.DUPLICATE),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
        assertEquals(listOf(callId), phone.ui.reports.map { it.callId })
    }

    @Test
    fun eachUpdateMessageEndsTheRingingCallWithItsReason() {
        val cases = listOf(EventType.CALL_CANCELLED to CallEndReason.REMOTE_ENDED,
                           EventType.CALL_ANSWERED_ELSEWHERE to CallEndReason.ANSWERED_ELSEWHERE,
                           EventType.CALL_DECLINED_ELSEWHERE to CallEndReason.DECLINED_ELSEWHERE,
                           EventType.CALL_UNANSWERED to CallEndReason.UNANSWERED)
        for ((type, reason) in cases) {
            val phone = CoordinatorHarness().connect()
            val callId = CoordinatorHarness.newCallId()
            phone.server.ring(callId)
            phone.coordinator.handleDataMessage(phone.ringing(callId))
            assertEquals(DataMessageOutcome.Update(callId, type),
                         phone.coordinator.handleDataMessage(phone.update(type, upper(callId))))
            assertEquals(listOf(callId to reason), phone.ui.ended)
            assertTrue(phone.observations.all.contains(Observation.Ended(callId, reason)))
        }
    }

    /** The same ending by data message, socket and a repeat closes the call once, with the first reason. */
    @Test
    fun aRemoteEndingClosesTheCallExactlyOnce() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        phone.server.update(callId) { it.copy(state = CallState.CANCELLED) }
        phone.coordinator.handle(phone.event(EventType.CALL_CANCELLED, callId, seq = 2))
        phone.coordinator.handleDataMessage(phone.update(EventType.CALL_CANCELLED, callId))
        phone.coordinator.handle(phone.event(EventType.CALL_CANCELLED, callId, seq = 3))
        phone.coordinator.refreshCalls()
        assertEquals(listOf(callId to CallEndReason.REMOTE_ENDED), phone.ui.ended)
        assertEquals(1, phone.observations.all.count { it is Observation.Ended })
    }

    @Test
    fun aRingingCallEndsOnItsOwnAtItsDeadlineWhenNoEventArrives() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId, expiresInMs = 30_000))
        phone.clock.advance(29_000)
        assertTrue(phone.ui.ended.isEmpty())
        phone.clock.advance(PhoneCallMachine.DEADLINE_GRACE_MS + 1_000)
        assertEquals(listOf(callId to CallEndReason.UNANSWERED), phone.ui.ended)
    }

    /** Answer before connect: kept against the call id, sent after connect, completed only once the server confirmed. */
    @Test
    fun anAnswerGivenWhileTheAppIsLaunchingIsSentOnceConnectedAndCompletesOnlyWhenTheServerConfirmed() {
        val phone = CoordinatorHarness()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
        val answered = phone.answer(upper(callId))
        assertTrue("nothing is sent before connect", phone.server.requests.isEmpty())
        assertNull(answered())
        val accept = "POST /v1/calls/$callId/accept"
        phone.server.hold(accept)
        phone.connect()
        assertTrue(phone.server.isHeld(accept))
        assertNull("the answer waits for the server's confirmation", answered())
        phone.server.release(accept)
        assertEquals(true, answered())
        assertEquals(1, phone.server.count(accept))
        assertEquals(CallState.ACCEPTED, phone.server.call(callId)?.state)
        assertEquals(CoordinatorHarness.DEVICE, phone.server.call(callId)?.acceptedDeviceId)
        assertTrue(phone.ui.ended.isEmpty())
        assertTrue(phone.observations.all.any { it is Observation.Answered && it.callId == callId })
    }

    /** An answer that lost to another device ends the call with its reason before the answer fails. */
    @Test
    fun anAnswerThatLostEndsAnsweredElsewhereBeforeTheAnswerFails() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.server.refuse("POST /v1/calls/$callId/accept",
                            Problem(ProblemType.ANSWERED_ELSEWHERE.rawValue, "Conflict", 409, "lost", CallState.ACCEPTED))
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        val order = ArrayList<String>()
        phone.coordinator.answer(callId) { fulfilled ->
            order.add("ended ${phone.ui.ended.map { it.second }}")
            order.add("answer $fulfilled")
        }
        assertEquals(listOf("ended [answered_elsewhere]", "answer false"), order)
    }

    @Test
    fun anAnswerRetriedAfterAServerErrorStillCompletes() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        phone.server.fail("POST /v1/calls/$callId/accept", 503)
        phone.server.fail("POST /v1/calls/$callId/accept", null)
        val answered = phone.answer(callId)
        assertNull(answered())
        phone.clock.advance(10_000)
        assertEquals(true, answered())
        assertEquals(3, phone.server.count("POST /v1/calls/$callId/accept"))
    }

    @Test
    fun mediaCanStartOnlyAfterTheAnswerIsConfirmedAndAudioIsActive() {
        // Answer first, audio later.
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        assertEquals(true, phone.answer(callId)())
        assertFalse(phone.observations.all.any { it is Observation.MediaCanStart })
        phone.coordinator.audioSessionActivated()
        assertEquals(1, phone.observations.all.count { it is Observation.MediaCanStart && it.callId == callId })

        // Audio first (activated while ringing), the answer later.
        val other = CoordinatorHarness().connect()
        val second = CoordinatorHarness.newCallId()
        other.server.ring(second)
        other.coordinator.handleDataMessage(other.ringing(second))
        other.coordinator.audioSessionActivated()
        assertFalse(other.observations.all.any { it is Observation.MediaCanStart })
        other.server.hold("POST /v1/calls/$second/accept")
        val answered = other.answer(second)
        assertFalse("not before the server confirmed", other.observations.all.any { it is Observation.MediaCanStart })
        other.server.release("POST /v1/calls/$second/accept")
        assertEquals(true, answered())
        val media = other.observations.all.filterIsInstance<Observation.MediaCanStart>()
        assertEquals(listOf(second), media.map { it.callId })
        assertEquals("media-token-$second", media[0].media.token)
    }

    @Test
    fun mediaWaitingForAudioIsDroppedWhenTheCallEnds() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        assertEquals(true, phone.answer(callId)())
        phone.server.update(callId) { it.copy(state = CallState.ENDED, endedBy = "alice") }
        phone.coordinator.handle(phone.event(EventType.CALL_ENDED, callId, seq = 2))
        phone.coordinator.audioSessionActivated()
        assertFalse(phone.observations.all.any { it is Observation.MediaCanStart })
        assertEquals(listOf(callId to CallEndReason.REMOTE_ENDED), phone.ui.ended)
    }

    @Test
    fun aCallTheServerEndedForLostConnectionClosesAsFailed() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        assertEquals(true, phone.answer(callId)())
        phone.server.update(callId) { it.copy(state = CallState.ENDED, endReason = SystemEndReason.CONNECTION_LOST) }
        phone.coordinator.handle(phone.event(EventType.CALL_ENDED, callId, seq = 2))
        assertEquals(listOf(callId to CallEndReason.FAILED), phone.ui.ended)
    }

    @Test
    fun aRingingAcknowledgementRefusedBecauseTheCallIsOverEndsTheCall() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.server.update(callId) { it.copy(state = CallState.CANCELLED) }
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
        assertEquals(listOf(callId to CallEndReason.REMOTE_ENDED), phone.ui.ended)
    }

    @Test
    fun aCallerThatMissedTheAnswerConnectsOnRefreshAndGetsItsMedia() {
        val phone = CoordinatorHarness().connect()
        val call = runBlockingUnconfined { phone.coordinator.startCall("alice") }
        phone.server.update(call.callId) { it.copy(state = CallState.ACCEPTED, acceptedDeviceId = "alice-phone") }
        phone.coordinator.refreshCalls()
        assertEquals(listOf(call.callId), phone.ui.connected)
        phone.coordinator.audioSessionActivated()
        assertTrue(phone.observations.all.any { it is Observation.OutgoingAnswered && it.callId == call.callId })
        assertTrue(phone.observations.all.any { it is Observation.MediaCanStart && it.callId == call.callId })
    }

    @Test
    fun placingACallRetriesWithOneIdempotencyKey() {
        val phone = CoordinatorHarness().connect()
        phone.server.fail("POST /v1/calls", null)
        var placed: Call? = null
        val job = launchUnconfined { placed = phone.coordinator.startCall("alice") }
        assertNull(placed)
        phone.clock.advance(1_000)
        assertTrue(job.isCompleted)
        assertEquals(CallState.RINGING, placed?.state)
        assertEquals(2, phone.server.count("POST /v1/calls"))
        assertNotNullCall(phone.server.call(placed!!.callId))
    }

    @Test
    fun aLearnedClockOffsetJudgesDeadlinesAndIsStored() {
        val phone = CoordinatorHarness(clockOffsetMs = null).connect()
        assertNull(phone.coordinator.clockOffsetMs)
        // The server's clock is two minutes ahead of the phone's.
        phone.coordinator.serverTimeObserved(phone.clock.now() + 120_000)
        assertEquals(120_000L, phone.coordinator.clockOffsetMs)
        assertEquals(120_000L, phone.clockOffsets.load()?.offsetMs)
        assertEquals(CoordinatorHarness.BOOT_MS, phone.clockOffsets.load()?.bootTimeMs)
        // A message sent 30 s ago on the server's clock with 25 s to ring, as the phone's clock reads it, is stale.
        val callId = CoordinatorHarness.newCallId()
        val sentAt = phone.clock.now() + 120_000 - 30_000
        val body = RingerPushBody(callId, Party("alice"), "bob", false, sentAt, sentAt + 25_000)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.EXPIRED),
                     phone.coordinator.handleDataMessage(mapOf("ringer" to body.toJson().toString())))
    }

    @Test
    fun aStoredOffsetFromBeforeTheWallClockWasSetIsForgotten() {
        val clock = ManualClock(CoordinatorHarness.START_MS)
        val offsets = InMemoryClockOffsetStore(StoredClockOffset(120_000, CoordinatorHarness.BOOT_MS - 60_000))
        val coordinator = CallCoordinator("bob-android", FakeCallUi(),
                                          kotlinx.coroutines.CoroutineScope(ImmediateDispatcher),
                                          { clock.now() }, { clock.sleepUntil(it) }, { 0.5 }, InMemoryPendingActionStore(),
                                          offsets, bootTimeMs = { CoordinatorHarness.BOOT_MS }, observer = { })
        assertNull(coordinator.clockOffsetMs)
    }

    private fun assertNotNullCall(call: Call?) = assertTrue(call != null)

    companion object {
        /** The UUID in upper case, as an app holding `java.util.UUID` or a Swift peer may write it. */
        fun upper(callId: String): String = callId.map { if (it in 'a'..'f') it - ('a' - 'A') else it }.joinToString("")
    }
}
