package dev.ringer.android

import android.os.ParcelUuid
import android.telecom.DisconnectCause
import androidx.core.telecom.CallAttributesCompat
import androidx.core.telecom.CallEndpointCompat
import androidx.core.telecom.CallException
import androidx.core.telecom.CallsManager
import androidx.core.telecom.MirrorCall
import dev.ringer.kit.AudioOutput
import dev.ringer.kit.AudioRoute
import dev.ringer.kit.CallBackLog
import dev.ringer.kit.CallBackRequest
import dev.ringer.kit.CallEndReason
import dev.ringer.kit.ImmediateDispatcher
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import dev.ringer.kit.PushGroup
import dev.ringer.lab.app.MirrorPhone
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.runBlocking
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.util.UUID
import java.util.function.BooleanSupplier

/**
 * [CoreTelecomCallUi] on the Core-Telecom mirror's Telecom, with [RecordingActions] in place of the coordinator and
 * every coroutine run at once: what each Core-Telecom callback and flow tells the core, and what each report of the
 * core asks of Core-Telecom, as docs/android-integration.md's "Two call UIs" table says.
 */
class CoreTelecomCallUiTest {
    private val caller = Party("alice", "Alice")
    private val rigs = ArrayList<Rig>()

    @After fun stopRigs() { rigs.forEach { it.scope.coroutineContext.cancel() } }

    private inner class Rig(sdkInt: Int = 35) {
        val phone = MirrorPhone(sdkInt)
        val calls = CallsManager(phone)
        val actions = RecordingActions()
        val scope = CoroutineScope(ImmediateDispatcher + SupervisorJob())
        val notifications = IncomingCallNotification(phone, phone.notificationManager, CallNotificationConfig(TestCallActivity::class.java, 7), sdkInt)
        val log = CallBackLog(File(phone.filesDir, "call-back-log.json"))
        val ui = CoreTelecomCallUi(phone, calls, notifications, scope, sdkInt, callBackLog = log)
        val completions = ArrayList<Throwable?>()

        init {
            ui.attach(actions)
            phone.notificationManager.mirrorInSelfManagedCall = BooleanSupplier { calls.mirrorCalls.any { it.mirrorState != "disconnected" } }
            rigs.add(this)
        }

        fun report(callId: String, hasVideo: Boolean = false, group: PushGroup? = null): MirrorCall? {
            ui.reportIncomingCall(IncomingCallReport(callId, caller, hasVideo, group)) { completions.add(it) }
            return calls.mirrorCalls.lastOrNull()
        }

        /** A ringing call answered in the app and confirmed by the server: active. */
        fun active(callId: String): MirrorCall {
            val call = report(callId)!!
            ui.answer(callId)
            actions.answers.getValue(callId)(true)
            return call
        }

        fun showing(callId: String) = phone.notificationManager.mirrorShowing["$callId/${IncomingCallNotification.NOTIFICATION_ID}"]
    }

    @Test fun anIncomingCallIsAddedHoldableAndRingsThroughItsNotificationOnceAdded() {
        val rig = Rig()
        rig.ui.registerWithTelecom("Calls")
        assertEquals(CallsManager.CAPABILITY_BASELINE or CallsManager.CAPABILITY_SUPPORTS_VIDEO_CALLING, rig.calls.mirrorCapabilities)
        val call = rig.report("c1", hasVideo = true)!!
        assertEquals(listOf<Throwable?>(null), rig.completions)
        assertEquals(CallAttributesCompat.DIRECTION_INCOMING, call.attributes.direction)
        assertEquals(CallAttributesCompat.CALL_TYPE_VIDEO_CALL, call.attributes.callType)
        assertEquals(CallAttributesCompat.SUPPORTS_SET_INACTIVE, call.attributes.callCapabilities)
        assertEquals("sip:alice", call.attributes.address.toString())
        assertEquals("Alice", call.attributes.displayName.toString())
        assertEquals("ringing", call.mirrorState)
        assertTrue("the app posts the ringing notification itself", rig.showing("c1") != null)
        assertEquals(listOf<String>(), rig.actions.log)
    }

    @Test fun aGroupCallShowsTheCallerAndTheOthersCountAtTheCallersAddress() {
        val rig = Rig()
        val call = rig.report("c1", group = PushGroup(3, listOf(Party("carol"))))!!
        assertEquals("Alice and 2 others", call.attributes.displayName.toString())
        assertEquals("sip:alice", call.attributes.address.toString())
    }

    @Test fun aSecondReportOfACallHereAndCoreTelecomsRefusalsFailTheReport() {
        val rig = Rig()
        rig.report("c1")
        rig.report("c1")
        assertEquals(CallUiException.CODE_CALL_ALREADY_EXISTS, (rig.completions.last() as CallUiException).code)
        assertEquals(1, rig.calls.mirrorCalls.size)

        rig.calls.mirrorRefusal = CallException.ERROR_CALL_NOT_PERMITTED_AT_PRESENT_TIME
        rig.report("c2")
        assertEquals(CallUiException.CODE_REFUSED, (rig.completions.last() as CallUiException).code)
        rig.calls.mirrorRefusal = null
        rig.calls.mirrorManageOwnCallsGranted = false
        rig.report("c3")
        assertEquals(CallUiException.CODE_NOT_PERMITTED, (rig.completions.last() as CallUiException).code)
        assertNull("a refused call is not kept", rig.ui.peer("c3"))
        assertEquals(listOf<String>(), rig.actions.log)
    }

    @Test fun anAnswerInTheAppWaitsForTheServerThenAnswersInTelecomAndStartsTheAudio() {
        val rig = Rig()
        val call = rig.report("c1")!!
        assertTrue(rig.ui.answer("c1"))
        assertFalse("a second answer is ignored", rig.ui.answer("c1"))
        assertEquals(listOf("answer c1"), rig.actions.log)
        assertEquals("ringing", call.mirrorState)
        assertEquals(listOf<String>(), call.mirrorRequests)
        // API 34+: Core-Telecom's foreground priority needs the call's CallStyle notification, not a service.
        assertEquals(android.app.Notification.CATEGORY_CALL, rig.showing("c1")!!.category)
        assertEquals("the ongoing one, which does not ring", 0, rig.showing("c1")!!.flags and android.app.Notification.FLAG_INSISTENT)
        assertTrue(rig.phone.started.isEmpty())

        rig.actions.answers.getValue("c1")(true)
        assertEquals(listOf("answer 1"), call.mirrorRequests)
        assertEquals("active", call.mirrorState)
        assertEquals(listOf("answer c1", "audio on"), rig.actions.log)
    }

    /** The answer's completion and the core's report of the confirmed answer both arrive, in either order. */
    @Test fun theConfirmedAnswerIsAskedOfTelecomOnceWhicheverWordComesFirst() {
        val rig = Rig()
        val call = rig.report("c1")!!
        rig.ui.answer("c1")
        rig.ui.reportCallAnswered("c1", 0)
        rig.actions.answers.getValue("c1")(true)
        assertEquals(listOf("answer 1"), call.mirrorRequests)
        assertEquals("active", call.mirrorState)
    }

    @Test fun belowApi34AnAnsweredCallHoldsTheForegroundServiceAsTheConnectionServiceOneDoes() {
        val rig = Rig(sdkInt = 33)
        rig.active("c1")
        assertEquals("c1", rig.phone.started.single().getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertTrue(rig.ui.foreground.isHeldBy("c1"))
        rig.ui.hangUp("c1") {}
        assertFalse(rig.ui.foreground.isHeldBy("c1"))
    }

    @Test fun theServersRefusalOfTheAnswerEndsTheCallInTelecom() {
        val rig = Rig()
        val call = rig.report("c1")!!
        rig.ui.answer("c1")
        rig.actions.answers.getValue("c1")(false)
        assertEquals(listOf("disconnect ${DisconnectCause.ERROR}"), call.mirrorRequests)
        assertEquals("disconnected", call.mirrorState)
        assertNull(rig.showing("c1"))
    }

    @Test fun anAnswerFromAWatchAnswersTheCoreAtOnceAndTheConfirmationAsksTelecomForNothingMore() {
        val rig = Rig()
        val call = rig.report("c1")!!
        runBlocking { call.mirrorAnswer() }
        assertEquals("active", call.mirrorState)
        assertNull(call.mirrorCallbackFailure)
        assertEquals(listOf("answer c1", "audio on"), rig.actions.log)
        rig.actions.answers.getValue("c1")(true)
        assertEquals(listOf<String>(), call.mirrorRequests)
    }

    @Test fun aDeclineDisconnectsAsRejectedAndTheSessionEnds() {
        val rig = Rig()
        val call = rig.report("c1")!!
        var result: Boolean? = null
        rig.ui.decline("c1") { result = it }
        assertEquals(listOf("disconnect ${DisconnectCause.REJECTED}"), call.mirrorRequests)
        assertEquals("disconnected", call.mirrorState)
        assertEquals(listOf("end c1"), rig.actions.log)
        rig.actions.ends.getValue("c1")(true)
        assertEquals(true, result)
        assertNull(rig.showing("c1"))
        var again: Boolean? = null
        rig.ui.hangUp("c1") { again = it }
        assertEquals("an ended call is not ended twice", false, again)
    }

    @Test fun telecomsDisconnectEndsTheCallInTheCoreWithoutAskingTelecomAgain() {
        val rig = Rig()
        val call = rig.active("c1")
        runBlocking { call.mirrorDisconnect(DisconnectCause(DisconnectCause.LOCAL)) }
        assertEquals(listOf("answer c1", "audio on", "audio off", "end c1"), rig.actions.log)
        assertEquals(listOf("answer 1"), call.mirrorRequests)
        assertNull(rig.ui.peer("c1"))
    }

    @Test fun theCoresEndOfACallDisconnectsItWithItsCause() {
        val rig = Rig()
        val call = rig.report("c1")!!
        rig.ui.reportCallEnded("c1", 0, CallEndReason.REMOTE_ENDED)
        assertEquals(listOf("disconnect ${DisconnectCause.REMOTE}"), call.mirrorRequests)
        assertNull(rig.showing("c1"))
        assertEquals(listOf<Throwable?>(null), rig.completions)
    }

    @Test fun aSimCallAnsweredHoldsTheCallAndTelecomResumesIt() {
        val rig = Rig()
        val call = rig.active("c1")
        runBlocking { call.mirrorSetInactive() }
        assertEquals("inactive", call.mirrorState)
        runBlocking { call.mirrorSetActive() }
        assertEquals(listOf("answer c1", "audio on", "hold c1", "audio off", "resume c1", "audio on"), rig.actions.log)
    }

    @Test fun aHoldIsTheCoresFirstAndAResumeTelecomsFirst() {
        val rig = Rig()
        val call = rig.active("c1")
        rig.actions.holdable.add("c1")
        rig.ui.requestHeld("c1", true)
        assertEquals(listOf("answer 1", "setInactive"), call.mirrorRequests)
        assertEquals("inactive", call.mirrorState)
        call.mirrorFailWith = CallException.ERROR_CALL_CANNOT_BE_SET_TO_ACTIVE
        rig.ui.requestHeld("c1", false)
        assertEquals("inactive", call.mirrorState)
        assertEquals("a resume Telecom refused never reaches the core", listOf("answer c1", "audio on", "hold c1", "audio off"), rig.actions.log)
        call.mirrorFailWith = null
        rig.ui.requestHeld("c1", false)
        assertEquals("active", call.mirrorState)
        assertEquals(listOf("answer c1", "audio on", "hold c1", "audio off", "resume c1", "audio on"), rig.actions.log)
    }

    @Test fun theEndpointsReachTheCoreWithTheSameIdsAndTheAppsChoiceIsAskedFor() {
        val rig = Rig()
        val call = rig.active("c1")
        val earpiece = CallEndpointCompat("Phone", CallEndpointCompat.TYPE_EARPIECE, ParcelUuid(UUID.randomUUID()))
        val speaker = CallEndpointCompat("Speaker", CallEndpointCompat.TYPE_SPEAKER, ParcelUuid(UUID.randomUUID()))
        val headset = CallEndpointCompat("Pixel Buds", CallEndpointCompat.TYPE_BLUETOOTH, ParcelUuid(UUID.randomUUID()))
        call.mirrorAvailableEndpoints(listOf(earpiece, speaker, headset))
        call.mirrorEndpoint(earpiece)
        assertEquals("earpiece of earpiece,speaker,${headset.identifier}", rig.actions.routes.last())
        assertEquals(AudioOutput(headset.identifier.toString(), AudioRoute.BLUETOOTH, "Pixel Buds"), CoreTelecomCallUi.outputOf(headset))

        rig.ui.applyAudioOutput(AudioOutput("speaker", AudioRoute.SPEAKER, "Speaker"))
        assertEquals("endpoint Speaker", call.mirrorRequests.last())
        assertEquals("speaker of earpiece,speaker,${headset.identifier}", rig.actions.routes.last())
        val asked = call.mirrorRequests.size
        rig.ui.applyAudioOutput(AudioOutput("car", AudioRoute.CAR, "Car"))
        assertEquals("an output Telecom does not list is not asked for", asked, call.mirrorRequests.size)
    }

    @Test fun thePlatformsMuteReachesTheCoreOnlyWhenItChangesAndTheAppsMuteIsTheMedias() {
        val rig = Rig()
        val call = rig.active("c1")
        call.mirrorMuted(false)
        rig.ui.requestMuted("c1", true)
        assertEquals("the app's mute is told at once", "mute c1", rig.actions.log.last())
        call.mirrorMuted(false)
        assertEquals("the platform's unmuted, said again, does not undo it", "mute c1", rig.actions.log.last())
        call.mirrorMuted(true)
        call.mirrorMuted(false)
        assertEquals(listOf("mute c1", "mute c1", "unmute c1"), rig.actions.log.filter { it.contains("mute") })
        rig.ui.requestDtmf("c1", "12#")
        assertEquals("dtmf 12# c1", rig.actions.log.last())
    }

    @Test fun anOutgoingCallIsAddedDialingHoldsItsNotificationAndGoesActiveWhenTheCalleeAnswers() {
        val rig = Rig()
        rig.ui.placeOutgoingCall("c1", Party("bob", "Bob"), hasVideo = false)
        val call = rig.calls.mirrorCalls.single()
        assertEquals(CallAttributesCompat.DIRECTION_OUTGOING, call.attributes.direction)
        assertEquals("dialing", call.mirrorState)
        assertEquals(android.app.Notification.CATEGORY_CALL, rig.showing("c1")!!.category)
        rig.ui.reportOutgoingCallConnected("c1", 0)
        assertEquals(listOf("setActive"), call.mirrorRequests)
        assertEquals(listOf("audio on"), rig.actions.log)
    }

    /** Android 16 logs every call Core-Telecom added; a tap on one there names Telecom's id of it. */
    @Test fun everyAddedCallIsRememberedByTelecomsIdForTheCallLogsCallBack() {
        val rig = Rig()
        val incoming = rig.report("c1", hasVideo = true, group = PushGroup(3, listOf(Party("carol"))))!!
        rig.ui.placeOutgoingCall("c2", Party("bob", "Bob"), hasVideo = false)
        val outgoing = rig.calls.mirrorCalls.last()
        assertEquals("the caller's id, not the group's name", CallBackRequest("alice", true), rig.log.find(incoming.getCallId().toString()))
        assertEquals(CallBackRequest("bob", false), rig.log.find(outgoing.getCallId().toString()))
        assertEquals("c1", rig.ui.callId(incoming.getCallId()))
    }

    @Test fun anOutgoingCallCoreTelecomRefusesEndsTheServerCall() {
        val rig = Rig()
        rig.calls.mirrorRefusal = CallException.ERROR_UNKNOWN
        rig.ui.placeOutgoingCall("c1", Party("bob"), hasVideo = true)
        assertEquals(listOf("end c1"), rig.actions.log)
        assertNull(rig.ui.peer("c1"))
    }

    /**
     * Core-Telecom rethrows a callback's exception in addCall's caller, which would end the app: a handling that fails
     * (an SDK bug) never reaches Telecom, and closes the call here instead.
     */
    @Test fun aCallbackWhoseHandlingFailsNeverThrowsIntoTelecomAndClosesTheCall() {
        val rig = Rig()
        val call = rig.report("c1")!!
        rig.actions.failAnswer = true
        runBlocking { call.mirrorAnswer() }
        assertNull(call.mirrorCallbackFailure)
        assertEquals("disconnected", call.mirrorState)
        assertEquals(DisconnectCause.ERROR, call.mirrorDisconnectCause!!.code)
        assertEquals("end c1", rig.actions.log.last())
        assertNull(rig.ui.peer("c1"))
    }

    /** An answer Telecom passes on after the call was declined or cancelled here revives nothing. */
    @Test fun anAnswerFromAWatchAfterTheCallClosedHereRevivesNothing() {
        for (sdkInt in listOf(33, 35)) {
            val rig = Rig(sdkInt)
            val call = rig.report("c1")!!
            call.mirrorFailWith = CallException.ERROR_CALL_IS_NOT_BEING_TRACKED
            rig.ui.reportCallEnded("c1", 0, CallEndReason.REMOTE_ENDED)
            call.mirrorFailWith = null
            runBlocking { call.mirrorAnswer() }
            assertNull("no ongoing notification for a dead call", rig.showing("c1"))
            assertTrue("no foreground service for a dead call", rig.phone.started.isEmpty())
            assertFalse(rig.ui.foreground.isHeldBy("c1"))
            assertEquals(listOf<String>(), rig.actions.log.filter { it.startsWith("answer") })
        }
    }

    /** The core's answer of a call answered before the UI had it comes in the report's completion: it is not undone. */
    @Test fun aCallAnsweredInTheReportsCompletionKeepsItsOngoingNotification() {
        val rig = Rig()
        rig.ui.reportIncomingCall(IncomingCallReport("c1", caller, false, null)) { error ->
            rig.completions.add(error)
            rig.ui.reportCallAnswering("c1", 0)
        }
        val shown = rig.showing("c1")!!
        assertEquals("the ongoing one, not the ringing one", 0, shown.flags and android.app.Notification.FLAG_INSISTENT)
    }

    /** The callee may answer before Core-Telecom added the outgoing call: it goes active once added. */
    @Test fun anOutgoingCallAnsweredBeforeItWasAddedGoesActiveOnceAdded() {
        val rig = Rig()
        val gate = CompletableDeferred<Unit>()
        rig.calls.mirrorAddGate = gate
        rig.ui.placeOutgoingCall("c1", Party("bob"), hasVideo = false)
        rig.ui.reportOutgoingCallConnected("c1", 0)
        assertTrue("not added yet", rig.calls.mirrorCalls.isEmpty())
        gate.complete(Unit)
        val call = rig.calls.mirrorCalls.single()
        assertEquals(listOf("setActive"), call.mirrorRequests)
        assertEquals("active", call.mirrorState)
        assertEquals(listOf("audio on"), rig.actions.log)
    }

    /** A call ended while Core-Telecom was adding it is disconnected once added, and its report fails once. */
    @Test fun aCallEndedWhileBeingAddedIsDisconnectedOnceAddedAndNeverRings() {
        val rig = Rig()
        val gate = CompletableDeferred<Unit>()
        rig.calls.mirrorAddGate = gate
        rig.report("c1")
        rig.ui.reportCallEnded("c1", 0, CallEndReason.REMOTE_ENDED)
        assertEquals(CallUiException.CODE_ENDED, (rig.completions.single() as CallUiException).code)
        gate.complete(Unit)
        val call = rig.calls.mirrorCalls.single()
        assertEquals(listOf("disconnect ${DisconnectCause.REMOTE}"), call.mirrorRequests)
        assertNull(rig.showing("c1"))
        assertEquals(1, rig.completions.size)
        assertEquals(listOf<String>(), rig.actions.log)
    }
}
