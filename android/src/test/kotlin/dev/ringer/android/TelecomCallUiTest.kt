package dev.ringer.android

import android.Manifest
import android.os.ParcelUuid
import android.telecom.CallAudioState
import android.telecom.CallEndpoint
import android.telecom.Connection
import android.telecom.DisconnectCause
import android.telecom.TelecomManager
import android.telecom.VideoProfile
import dev.ringer.kit.AudioOutput
import dev.ringer.kit.AudioRoute
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.CallEndReason
import dev.ringer.kit.CoordinatorHarness
import dev.ringer.kit.FakeRingerServer
import dev.ringer.kit.ImmediateDispatcher
import dev.ringer.kit.InMemoryClockOffsetStore
import dev.ringer.kit.InMemoryPendingActionStore
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.ManualClock
import dev.ringer.kit.Party
import dev.ringer.kit.PushGroup
import dev.ringer.kit.RingerApiClient
import dev.ringer.kit.RingerPushBody
import dev.ringer.kit.StoredClockOffset
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

class TelecomCallUiTest {
    private val caller = Party("alice", "Alice")

    @After fun forgetComponents() { RingerComponents.callUi = null }

    @Test fun reportedCallRingsWhenTelecomCreatesItsConnection() {
        val rig = TelecomRig()
        rig.report("c1", caller, hasVideo = true)
        assertTrue("no completion before Telecom answers", rig.completions.isEmpty())
        val callExtras = rig.phone.telecom.mirrorIncomingExtras.single().getBundle(TelecomManager.EXTRA_INCOMING_CALL_EXTRAS)!!
        assertEquals("c1", callExtras.getString(RingerIntents.EXTRA_CALL_ID))
        assertEquals("alice", callExtras.getString(RingerIntents.EXTRA_PEER_ID))
        assertTrue(callExtras.getBoolean(RingerIntents.EXTRA_HAS_VIDEO))

        val connection = rig.phone.telecomCreatesIncoming(rig.service)
        assertEquals(listOf<Throwable?>(null), rig.completions)
        assertEquals(Connection.STATE_RINGING, connection.state)
        assertEquals(Connection.PROPERTY_SELF_MANAGED, connection.connectionProperties)
        assertEquals("sip:alice", connection.address.toString())
        assertEquals("Alice", connection.callerDisplayName)
        assertEquals(VideoProfile.STATE_BIDIRECTIONAL, connection.videoState)
    }

    /** A group call names the caller and the count of the others; the address stays the caller's (decision 0007 §6). */
    @Test fun aGroupCallShowsTheCallerAndTheOthersCountAtTheCallersAddress() {
        val rig = TelecomRig()
        rig.report("g1", caller, group = PushGroup(3, listOf(Party("carol"), Party("dave"))))
        val connection = rig.phone.telecomCreatesIncoming(rig.service)
        assertEquals("Alice and 2 others", connection.callerDisplayName)
        assertEquals("sip:alice", connection.address.toString())
        assertEquals("Bob and 1 other", IncomingCallReport("g2", Party("bob", "Bob"), false, PushGroup(2, emptyList())).callerDisplayName())
        assertEquals("bob", IncomingCallReport("g3", Party("bob"), false, PushGroup(1, emptyList())).callerDisplayName())
    }

    @Test fun secondReportForTheSameCallIdIsRefusedWhilePendingAndWhileRinging() {
        val rig = TelecomRig()
        rig.report("c1")
        rig.report("c1")
        assertEquals(CallUiException.CODE_CALL_ALREADY_EXISTS, (rig.completions.single() as CallUiException).code)
        assertEquals(1, rig.phone.telecom.mirrorIncomingExtras.size)
        rig.phone.telecomCreatesIncoming(rig.service)
        rig.report("c1")
        assertEquals(CallUiException.CODE_CALL_ALREADY_EXISTS, (rig.completions.last() as CallUiException).code)
        assertEquals("only one addNewIncomingCall", 1, rig.phone.telecom.mirrorIncomingExtras.size)
    }

    @Test fun missingManageOwnCallsFailsTheReportAndDropsTheCallOnThisPhoneOnly() {
        val rig = TelecomRig()
        rig.phone.telecom.mirrorManageOwnCallsGranted = false
        rig.report("c1")
        val error = rig.completions.single() as CallUiException
        assertEquals(CallUiException.CODE_NOT_PERMITTED, error.code)
        assertTrue(error.cause is SecurityException)
        assertTrue("not declined: the user's other devices keep ringing", rig.actions.log.isEmpty())
        rig.phone.telecom.mirrorManageOwnCallsGranted = true
        rig.report("c1")
        assertEquals("the failed report left nothing behind", 1, rig.phone.telecom.mirrorIncomingExtras.size)
    }

    @Test fun telecomRefusalCompletesTheReportWithAnError() {
        val rig = TelecomRig()
        rig.report("c1")
        rig.phone.telecomRefusesIncoming(rig.service)
        assertEquals(CallUiException.CODE_REFUSED, (rig.completions.single() as CallUiException).code)
    }

    @Test fun connectionForAnUnreportedCallFails() {
        val rig = TelecomRig()
        rig.report("c1")
        rig.ui.reportCallEnded("c1", 0L, CallEndReason.REMOTE_ENDED)
        assertEquals(CallUiException.CODE_ENDED, (rig.completions.single() as CallUiException).code)
        val connection = rig.phone.telecomCreatesIncoming(rig.service)
        assertEquals(Connection.STATE_DISCONNECTED, connection.state)
        assertEquals(DisconnectCause.ERROR, connection.disconnectCause.code)
    }

    @Test fun endReasonsMapToDisconnectCausesAsTheIntegrationTableSays() {
        val expected29 = listOf(
            Triple(CallEndReason.REMOTE_ENDED, DisconnectCause.REMOTE, null),
            Triple(CallEndReason.UNANSWERED, DisconnectCause.MISSED, null),
            Triple(CallEndReason.ANSWERED_ELSEWHERE, DisconnectCause.ANSWERED_ELSEWHERE, null),
            Triple(CallEndReason.DECLINED_ELSEWHERE, DisconnectCause.REJECTED, "declined elsewhere"),
            Triple(CallEndReason.FAILED, DisconnectCause.ERROR, null),
            Triple(CallEndReason.ANSWER_NOT_DELIVERED, DisconnectCause.ERROR, "answer not delivered"),
            Triple(CallEndReason("from_a_newer_server"), DisconnectCause.REMOTE, null)
        )
        for ((sdk, table) in listOf(29 to expected29, 35 to expected29)) {
            val rig = TelecomRig(sdk)
            for ((index, row) in table.withIndex()) {
                val connection = rig.ringing("c$index")
                rig.ui.reportCallEnded("c$index", 1000L, row.first)
                assertEquals("$sdk ${row.first}", row.second, connection.disconnectCause.code)
                assertEquals("$sdk ${row.first}", row.third, connection.disconnectCause.reason)
                assertEquals(Connection.STATE_DISCONNECTED, connection.state)
                assertTrue("destroyed after setDisconnected", connection.mirrorDestroyed)
            }
            assertTrue("the core ended them: nothing sent back", rig.actions.log.isEmpty())
        }
        // DisconnectCause.ANSWERED_ELSEWHERE exists from API 25: the oldest phone the library runs on uses it too.
        val oldest = TelecomRig(26)
        val connection = oldest.ringing("c1")
        oldest.ui.reportCallEnded("c1", 1000L, CallEndReason.ANSWERED_ELSEWHERE)
        assertEquals("API 26", DisconnectCause.ANSWERED_ELSEWHERE, connection.disconnectCause.code)
    }

    @Test fun answerGoesActiveOnlyWhenTheServerConfirmed() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        connection.onAnswer()
        assertEquals(listOf("answer c1"), rig.actions.log)
        assertEquals("still ringing until the server confirms", Connection.STATE_RINGING, connection.state)
        connection.onAnswer(VideoProfile.STATE_AUDIO_ONLY)
        assertEquals("a second answer is not sent", listOf("answer c1"), rig.actions.log)
        rig.actions.answers.getValue("c1")(true)
        assertEquals(Connection.STATE_ACTIVE, connection.state)
        assertEquals(listOf("answer c1", "audio on"), rig.actions.log)
    }

    /**
     * Issue 27, item 3: an app that answers from its own call screen calls `CallCoordinator.answer` directly, never
     * Telecom's `onAnswer`. Once the server confirmed, the `Connection` must leave ringing and the ringtone stop,
     * exactly once, as for an answer made through Telecom; a late tap on the system's answer button changes nothing.
     */
    @Test fun answeringThroughTheCoordinatorMakesTheRingingConnectionActiveAndStopsTheRingtoneOnce() {
        val rig = TelecomRig()
        val clock = ManualClock(CoordinatorHarness.START_MS)
        val server = FakeRingerServer(clock)
        val coordinator = CallCoordinator(
            "bob-android", rig.ui, CoroutineScope(ImmediateDispatcher + SupervisorJob()), { clock.now() },
            { clock.sleepUntil(it) }, { 0.5 }, InMemoryPendingActionStore(),
            InMemoryClockOffsetStore(StoredClockOffset(0, CoordinatorHarness.BOOT_MS)),
            bootTimeMs = { CoordinatorHarness.BOOT_MS }, observer = { })
        rig.ui.attach(CoordinatorActions(coordinator))
        coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), server))
        val callId = CoordinatorHarness.newCallId()
        server.ring(callId)
        val push = RingerPushBody(callId, caller, "bob", false, clock.now(), clock.now() + 30_000)
        coordinator.handleDataMessage(mapOf("ringer" to push.toJson().toString()))
        val connection = rig.phone.telecomCreatesIncoming(rig.service)
        connection.onShowIncomingCallUi()
        val ringtone = "$callId/${IncomingCallNotification.NOTIFICATION_ID}"
        assertTrue(rig.phone.notificationManager.mirrorShowing.containsKey(ringtone))

        var answered: Boolean? = null
        coordinator.answer(callId) { answered = it }
        assertEquals(true, answered)
        assertEquals(Connection.STATE_ACTIVE, connection.state)
        assertFalse("the ringing notification and its ringtone are gone", rig.phone.notificationManager.mirrorShowing.containsKey(ringtone))
        assertTrue("held with the microphone", rig.phone.started.last().getBooleanExtra(RingerIntents.EXTRA_MICROPHONE, false))

        connection.onAnswer()
        rig.ui.reportCallAnswered(callId, clock.now())
        assertEquals("set active once", listOf(Connection.STATE_RINGING, Connection.STATE_ACTIVE), connection.mirrorStates)
        assertEquals("no second accept", 1, server.count("POST /v1/calls/$callId/accept"))
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    /** An answer made through Telecom is active when its completion runs; the server's confirmation changes nothing after. */
    @Test fun aCallAnsweredThroughTelecomIsNotSetActiveAgainWhenReportedAnswered() {
        val rig = TelecomRig()
        val connection = rig.active("c1")
        rig.ui.reportCallAnswered("c1", 1000L)
        rig.ui.reportCallAnswered("unknown", 1000L)
        assertEquals(listOf(Connection.STATE_RINGING, Connection.STATE_ACTIVE), connection.mirrorStates)
        assertEquals(listOf("answer c1", "audio on"), rig.actions.log)
    }

    /**
     * Telecom holds an answered call (the user answered a SIM call) and resumes it: the core decides, and the
     * `Connection` goes on hold and active again, as "Apps are responsible for setting CAPABILITY_SUPPORT_HOLD and
     * CAPABILITY_HOLD" asks, so Telecom holds it instead of disconnecting it.
     */
    @Test fun telecomHoldsAndResumesAnAnsweredCallThroughTheCore() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        assertEquals(Connection.CAPABILITY_HOLD or Connection.CAPABILITY_SUPPORT_HOLD,
            connection.connectionCapabilities and (Connection.CAPABILITY_HOLD or Connection.CAPABILITY_SUPPORT_HOLD))
        connection.onHold()
        assertEquals("a ringing call is not held", Connection.STATE_RINGING, connection.state)
        connection.onAnswer()
        rig.actions.answers.getValue("c1")(true)
        rig.actions.holdable.add("c1")
        connection.onHold()
        assertEquals(Connection.STATE_HOLDING, connection.state)
        connection.onUnhold()
        assertEquals(Connection.STATE_ACTIVE, connection.state)
        assertEquals("the audio stops while held and runs again on resume",
            listOf("answer c1", "audio on", "hold c1", "audio off", "resume c1", "audio on"), rig.actions.log)
        // The core's own request (the app held it, or another call took the audio) goes the same way.
        rig.ui.requestHeld("c1", true)
        assertEquals(Connection.STATE_HOLDING, connection.state)
        rig.actions.holdable.remove("c1")
        rig.ui.requestHeld("c1", false)
        assertEquals("the core refused: the connection stays as it was", Connection.STATE_HOLDING, connection.state)
    }

    @Test fun aLostConnectionServiceFocusHoldsTheActiveCallAndIsReleasedAtOnce() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        connection.onAnswer()
        rig.actions.answers.getValue("c1")(true)
        rig.actions.holdable.add("c1")
        // A SIM call answered with Hold & Accept: Telecom's focus manager waits 5 s for the release, then
        // disconnects every call of the service; the SDK holds what is still active and releases at once.
        rig.service.onConnectionServiceFocusLost()
        assertEquals(1, rig.service.mirrorFocusReleases)
        assertEquals(Connection.STATE_HOLDING, connection.state)
        assertEquals(listOf("answer c1", "audio on", "hold c1", "audio off"), rig.actions.log)
        // Telecom held it first (the usual order): nothing more to hold, the focus is released all the same.
        rig.service.onConnectionServiceFocusLost()
        assertEquals(2, rig.service.mirrorFocusReleases)
        assertEquals(listOf("answer c1", "audio on", "hold c1", "audio off"), rig.actions.log)
    }

    @Test fun theCallsAudioRunsWhileAnyConnectionIsActive() {
        val rig = TelecomRig()
        val first = rig.ringing("c1")
        first.onAnswer()
        rig.actions.answers.getValue("c1")(true)
        rig.actions.holdable.addAll(listOf("c1", "c2"))
        val second = rig.ringing("c2")
        first.onHold()
        second.onAnswer()
        rig.actions.answers.getValue("c2")(true)
        // The held call ends while the other talks: the audio still runs (a route chosen now is asked of Telecom).
        first.onDisconnect()
        rig.actions.ends.getValue("c1")(true)
        second.onDisconnect()
        assertEquals(listOf("answer c1", "audio on", "hold c1", "audio off", "answer c2", "audio on", "end c1", "audio off",
                            "end c2"), rig.actions.log)
    }

    @Test fun telecomKeypadTonesReachTheCoreOnlyForAnActiveCall() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        rig.actions.holdable.add("c1")
        connection.onPlayDtmfTone('1')
        connection.onAnswer()
        rig.actions.answers.getValue("c1")(true)
        connection.onPlayDtmfTone('7')
        connection.onStopDtmfTone()
        rig.ui.requestDtmf("c1", "0#")
        connection.onHold()
        connection.onPlayDtmfTone('9')
        assertEquals(listOf("answer c1", "audio on", "dtmf 7 c1", "dtmf 0# c1", "hold c1", "audio off"), rig.actions.log)
        assertFalse("a held connection passes no key", rig.ui.dtmf("c1", "9"))
        assertFalse(rig.ui.dtmf("c2", "9"))
    }

    @Test fun callEndpointsAreTheRouteFromApi34AndTheCoresChoiceIsAnEndpointRequest() {
        val rig = TelecomRig(sdkInt = 34)
        val connection = rig.ringing("c1")
        val earpiece = CallEndpoint("Phone", CallEndpoint.TYPE_EARPIECE, ParcelUuid.fromString("00000000-0000-0000-0000-000000000001"))
        val speaker = CallEndpoint("Speaker", CallEndpoint.TYPE_SPEAKER, ParcelUuid.fromString("00000000-0000-0000-0000-000000000002"))
        val buds = CallEndpoint("Pixel Buds", CallEndpoint.TYPE_BLUETOOTH, ParcelUuid.fromString("00000000-0000-0000-0000-0000000000b1"))
        connection.onAvailableCallEndpointsChanged(listOf(earpiece, speaker, buds))
        connection.onCallEndpointChanged(buds)
        @Suppress("DEPRECATION") connection.onCallAudioStateChanged(CallAudioState(false, CallAudioState.ROUTE_EARPIECE, 1))
        val budsId = "00000000-0000-0000-0000-0000000000b1"
        assertEquals(listOf("null of earpiece,speaker,$budsId", "$budsId of earpiece,speaker,$budsId"), rig.actions.routes)
        rig.ui.applyAudioOutput(AudioOutput("speaker", AudioRoute.SPEAKER, "Speaker"))
        rig.ui.applyAudioOutput(AudioOutput("gone", AudioRoute.WIRED, "Headset"))
        assertEquals("only an endpoint Telecom lists is asked for", listOf(speaker), connection.mirrorEndpointRequests)
        connection.onMuteStateChanged(true)
        assertEquals(listOf("mute c1"), rig.actions.log)
    }

    @Test fun theAudioStateIsTheRouteBelowApi34AndTheCoresChoiceSetsTheRoute() {
        val rig = TelecomRig(sdkInt = 33)
        val connection = rig.ringing("c1")
        val mask = CallAudioState.ROUTE_EARPIECE or CallAudioState.ROUTE_SPEAKER or CallAudioState.ROUTE_BLUETOOTH
        @Suppress("DEPRECATION") connection.onCallAudioStateChanged(CallAudioState(false, CallAudioState.ROUTE_EARPIECE, mask))
        connection.onCallEndpointChanged(CallEndpoint("Speaker", CallEndpoint.TYPE_SPEAKER, ParcelUuid.fromString("00000000-0000-0000-0000-000000000002")))
        assertEquals(listOf("earpiece of earpiece,speaker,bluetooth"), rig.actions.routes)
        rig.ui.applyAudioOutput(AudioOutput("bluetooth", AudioRoute.BLUETOOTH, "Bluetooth"))
        rig.ui.applyAudioOutput(AudioOutput("streaming", AudioRoute.OTHER, "Streaming"))
        assertEquals(listOf(CallAudioState.ROUTE_BLUETOOTH, CallAudioState.ROUTE_STREAMING), connection.mirrorAudioRoutes)
        @Suppress("DEPRECATION") connection.onCallAudioStateChanged(CallAudioState(false, CallAudioState.ROUTE_BLUETOOTH, mask))
        @Suppress("DEPRECATION") connection.onCallAudioStateChanged(CallAudioState(true, CallAudioState.ROUTE_BLUETOOTH, mask))
        @Suppress("DEPRECATION") connection.onCallAudioStateChanged(CallAudioState(true, CallAudioState.ROUTE_SPEAKER, mask))
        assertEquals("only a change of Telecom's own mute counts, not its unmuted state at each route change",
            listOf("mute c1"), rig.actions.log)
    }

    @Test fun refusedAnswerClosesTheCallWithError() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        connection.onAnswer()
        rig.actions.answers.getValue("c1")(false)
        assertEquals(DisconnectCause.ERROR, connection.disconnectCause.code)
        assertTrue(connection.mirrorDestroyed)
        assertFalse("never active", connection.mirrorStates.contains(Connection.STATE_ACTIVE))
        assertTrue("not stopped before its start went foreground", rig.phone.stopped.isEmpty())
        assertTrue("it stops itself once Android delivers the start", rig.phone.runForegroundService().mirrorStoppedSelf)
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun rejectDeclinesThroughTheCoreAndDisconnectEnds() {
        val rig = TelecomRig()
        val ringing = rig.ringing("c1")
        ringing.onReject()
        assertEquals(DisconnectCause.REJECTED, ringing.disconnectCause.code)
        assertTrue(ringing.mirrorDestroyed)
        val active = rig.ringing("c2")
        active.onAnswer()
        rig.actions.answers.getValue("c2")(true)
        active.onDisconnect()
        assertEquals(DisconnectCause.LOCAL, active.disconnectCause.code)
        assertEquals(listOf("end c1", "answer c2", "audio on", "audio off", "end c2"), rig.actions.log)
    }

    @Test fun showIncomingCallUiPostsTheNotificationAndAnswerRemovesIt() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        assertTrue(rig.phone.notificationManager.mirrorShowing.isEmpty())
        connection.onShowIncomingCallUi()
        assertEquals(setOf("c1/${IncomingCallNotification.NOTIFICATION_ID}"), rig.phone.notificationManager.mirrorShowing.keys)
        connection.onAnswer()
        assertTrue(rig.phone.notificationManager.mirrorShowing.isEmpty())
    }

    @Test fun outgoingCallDialsHoldsTheForegroundServiceAndConnects() {
        val rig = TelecomRig()
        rig.ui.placeOutgoingCall("o1", Party("bob", null), hasVideo = false)
        assertEquals("sip:bob", rig.phone.telecom.mirrorPlacedCalls.single().toString())
        val connection = rig.phone.telecomCreatesOutgoing(rig.service)
        assertEquals(Connection.STATE_DIALING, connection.state)
        assertEquals("o1", rig.phone.started.single().getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertTrue("the microphone is asked for while the user who dialled is in the app",
                   rig.phone.started.single().getBooleanExtra(RingerIntents.EXTRA_MICROPHONE, false))
        rig.ui.reportOutgoingCallConnected("o1", 5L)
        assertEquals(Connection.STATE_ACTIVE, connection.state)
        assertEquals(listOf("audio on"), rig.actions.log)
        for (start in rig.phone.started.toList()) rig.phone.runForegroundService(start)
        rig.ui.reportCallEnded("o1", 9L, CallEndReason.REMOTE_ENDED)
        assertEquals(1, rig.phone.stopped.size)
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun placeCallWithoutManageOwnCallsThrows() {
        val rig = TelecomRig()
        rig.phone.telecom.mirrorManageOwnCallsGranted = false
        try {
            rig.ui.placeOutgoingCall("o1", Party("bob"), hasVideo = false)
            throw AssertionError("expected CallUiException")
        } catch (e: CallUiException) {
            assertEquals(CallUiException.CODE_NOT_PERMITTED, e.code)
        }
    }

    @Test fun phoneAccountIsSelfManagedOnTheConnectionService() {
        val rig = TelecomRig()
        rig.ui.registerWithTelecom("Calls")
        val account = rig.phone.telecom.mirrorRegistered.single()
        assertTrue(account.hasCapabilities(android.telecom.PhoneAccount.CAPABILITY_SELF_MANAGED))
        assertEquals(RingerConnectionService::class.java.name, account.accountHandle.componentName.className)
        assertNull(rig.ui.peer("nobody"))
        assertTrue(rig.phone.granted.contains(Manifest.permission.MANAGE_OWN_CALLS))
    }
}
