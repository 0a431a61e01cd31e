package dev.ringer.android

import android.telecom.Connection
import dev.ringer.kit.AudioOutput
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.CallEndReason
import dev.ringer.kit.CallState
import dev.ringer.kit.CallUi
import dev.ringer.kit.CoordinatorHarness
import dev.ringer.kit.FakeRingerServer
import dev.ringer.kit.ImmediateDispatcher
import dev.ringer.kit.InMemoryCallMemoryStore
import dev.ringer.kit.InMemoryClockOffsetStore
import dev.ringer.kit.InMemoryPendingActionStore
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.ManualClock
import dev.ringer.kit.Party
import dev.ringer.kit.PhoneCallMachine
import dev.ringer.kit.RingerApiClient
import dev.ringer.kit.RingerPushBody
import dev.ringer.kit.StoredClockOffset
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Test

/**
 * Answers given or confirmed while the call UI is still taking the call's report (Telecom creates its `Connection`
 * asynchronously; a restored answer is reported and sent in one step), and answers from the app's own screen: the
 * deadline still ends an undelivered answer, a confirmed answer still shows active, and the ringing stops at the tap
 * (issue 27; each test failed before the report's completion took up what the answer could not show).
 */
class AnswerBeforeTheCallUiTest {
    private val start = CoordinatorHarness.START_MS
    private val caller = Party("alice", "Alice")

    @After fun forgetComponents() { RingerComponents.callUi = null }

    /** A call UI whose report completes only when the test says (Telecom's `onCreateIncomingConnection` is async). */
    class DeferredCallUi : CallUi {
        val completions = HashMap<String, (Throwable?) -> Unit>()
        val ended = ArrayList<Pair<String, CallEndReason>>()
        val answered = ArrayList<String>()
        override fun reportIncomingCall(report: IncomingCallReport, completion: (Throwable?) -> Unit) {
            synchronized(this) { completions[report.callId] = completion }
        }
        override fun reportCallEnded(callId: String, atMs: Long, reason: CallEndReason) { synchronized(this) { ended.add(callId to reason) } }
        override fun reportOutgoingCallConnected(callId: String, atMs: Long) {}
        override fun reportCallAnswered(callId: String, atMs: Long) { synchronized(this) { answered.add(callId) } }
        override fun reportCallAnswering(callId: String, atMs: Long) {}
        override fun requestHeld(callId: String, held: Boolean) {}
        override fun requestMuted(callId: String, muted: Boolean) {}
        override fun requestDtmf(callId: String, digits: String) {}
        override fun applyAudioOutput(output: AudioOutput?) {}
    }

    private fun coordinator(ui: CallUi, clock: ManualClock, memory: InMemoryCallMemoryStore = InMemoryCallMemoryStore()) =
        CallCoordinator("bob-android", ui, CoroutineScope(ImmediateDispatcher + SupervisorJob()), { clock.now() },
            { clock.sleepUntil(it) }, { 0.5 }, InMemoryPendingActionStore(),
            InMemoryClockOffsetStore(StoredClockOffset(0, CoordinatorHarness.BOOT_MS)), memory,
            bootTimeMs = { CoordinatorHarness.BOOT_MS }, observer = { })

    private fun push(callId: String, clock: ManualClock) =
        mapOf("ringer" to RingerPushBody(callId, caller, "bob", false, clock.now(), clock.now() + 30_000).toJson().toString())

    /**
     * The app's own screen answers before Telecom called `onCreateIncomingConnection`: the report's completion arms
     * the deadline the ringing path would have armed, so with the network down the call ends `answer_not_delivered`
     * and the accept loop stops (it once retried forever).
     */
    @Test fun anAnswerGivenBeforeTheReportFinishedStillEndsAnswerNotDeliveredAtTheDeadline() {
        val clock = ManualClock(start)
        val server = FakeRingerServer(clock)
        val ui = DeferredCallUi()
        val coordinator = coordinator(ui, clock)
        coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), server))
        val callId = CoordinatorHarness.newCallId()
        server.ring(callId)
        server.outage(start + 1, start + 3_600_000)
        coordinator.handleDataMessage(push(callId, clock))
        clock.advanceTo(start + 500)
        var answered: Boolean? = null
        coordinator.answer(callId) { answered = it }      // the app's own screen
        ui.completions.getValue(callId)(null)             // Telecom creates the connection just after
        clock.advanceTo(start + 40_000)
        assertEquals("ended as not delivered 2 s after the 30 s deadline",
                     listOf(callId to CallEndReason.ANSWER_NOT_DELIVERED), ui.ended)
        assertEquals(false, answered)
        val accepts = server.count("POST /v1/calls/$callId/accept")
        clock.advanceTo(start + 120_000)
        assertEquals("the accept loop stopped", accepts, server.count("POST /v1/calls/$callId/accept"))
    }

    private fun attach(rig: TelecomRig, coordinator: CallCoordinator) = rig.ui.attach(CoordinatorActions(coordinator))

    /** A coordinator on [rig]'s Telecom, logged in to [server], with a new call's ringing message handled. */
    private fun ringingOnTelecom(rig: TelecomRig, clock: ManualClock, server: FakeRingerServer): Pair<CallCoordinator, String> {
        val coordinator = coordinator(rig.ui, clock)
        attach(rig, coordinator)
        coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), server))
        val callId = CoordinatorHarness.newCallId()
        server.ring(callId)
        coordinator.handleDataMessage(push(callId, clock))
        return coordinator to callId
    }

    /**
     * A restored answer (relaunch) is reported to Telecom and its accept sent at once; the server may confirm before
     * Telecom calls `onCreateIncomingConnection` (`Application.onCreate` holds the main thread). The confirmation
     * is shown when the report completes: the `Connection` goes active instead of ringing on a call the server has
     * accepted.
     */
    @Test fun aRestoredAnswerConfirmedBeforeTelecomCreatedTheConnectionGoesActive() {
        val clock = ManualClock(start)
        val server = FakeRingerServer(clock)
        val callId = CoordinatorHarness.newCallId()
        server.ring(callId)
        val memory = InMemoryCallMemoryStore(PhoneCallMachine.Memory(unconfirmedAnswers = mapOf(
            callId to PhoneCallMachine.UnconfirmedAnswer(caller, "bob", false, start + 30_000, start + 30_000))))
        clock.advanceTo(start + 3_000)
        val rig = TelecomRig()
        val coordinator = coordinator(rig.ui, clock, memory)    // Application.onCreate: the answer is reported again
        attach(rig, coordinator)
        coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), server))
        assertEquals(CallState.ACCEPTED, server.call(callId)?.state)
        val connection = rig.phone.telecomCreatesIncoming(rig.service)   // Telecom gets to it after the accept's answer
        assertEquals("the server accepted: the connection must not ring on", Connection.STATE_ACTIVE, connection.state)
    }

    /** The same race on a fresh answer: the app's own screen answers while Telecom is still creating the connection. */
    @Test fun anAppScreenAnswerConfirmedBeforeTelecomCreatedTheConnectionGoesActive() {
        val clock = ManualClock(start)
        val server = FakeRingerServer(clock)
        val rig = TelecomRig()
        val (coordinator, callId) = ringingOnTelecom(rig, clock, server)
        var answered: Boolean? = null
        coordinator.answer(callId) { answered = it }
        assertEquals(true, answered)
        val connection = rig.phone.telecomCreatesIncoming(rig.service)
        assertEquals(Connection.STATE_ACTIVE, connection.state)
    }

    /**
     * An answer from the app's own screen through `CallCoordinator.answer` during an outage: the insistent ringing
     * notification (and its ringtone) goes at the tap, and the call's foreground service starts then, while the app
     * is visible, as docs/android-integration.md says; it once waited for the server's confirmation.
     */
    @Test fun anAppScreenAnswerDuringAnOutageStopsTheRingtoneAtTheTap() {
        val clock = ManualClock(start)
        val server = FakeRingerServer(clock)
        val rig = TelecomRig()
        val (coordinator, callId) = ringingOnTelecom(rig, clock, server)
        val connection = rig.phone.telecomCreatesIncoming(rig.service)
        connection.onShowIncomingCallUi()
        val ringtone = "$callId/${IncomingCallNotification.NOTIFICATION_ID}"
        server.outage(start + 1_000, start + 4_000)
        clock.advanceTo(start + 1_000)
        coordinator.answer(callId) { }
        clock.advanceTo(start + 2_000)
        assertEquals("the ringtone stops at the tap", false, rig.phone.notificationManager.mirrorShowing.containsKey(ringtone))
        assertEquals("the foreground service starts at the tap", true, rig.phone.started.isNotEmpty())
    }
}
