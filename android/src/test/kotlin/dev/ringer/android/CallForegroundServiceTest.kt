package dev.ringer.android

import android.Manifest
import android.app.ForegroundServiceStartNotAllowedException
import android.app.Notification
import android.content.Intent
import android.content.pm.ServiceInfo
import android.telecom.Connection
import android.telecom.DisconnectCause
import dev.ringer.kit.CallEndReason
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

class CallForegroundServiceTest {
    private val phoneCall = ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL
    private val microphone = ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE

    @After fun forgetComponents() { RingerComponents.callUi = null }

    @Test fun typeIsPhoneCallPlusMicrophoneOnlyWhenWantedAndRecordAudioGranted() {
        assertEquals(phoneCall, CallForegroundService.foregroundServiceTypes(microphoneWanted = false, recordAudioGranted = false))
        assertEquals(phoneCall, CallForegroundService.foregroundServiceTypes(microphoneWanted = false, recordAudioGranted = true))
        assertEquals(phoneCall, CallForegroundService.foregroundServiceTypes(microphoneWanted = true, recordAudioGranted = false))
        assertEquals(phoneCall or microphone, CallForegroundService.foregroundServiceTypes(microphoneWanted = true, recordAudioGranted = true))
    }

    private val camera = ServiceInfo.FOREGROUND_SERVICE_TYPE_CAMERA

    /** The app's opt-in: its manifest declares the service with the camera type, and the user granted CAMERA. */
    private fun optIntoCamera(rig: TelecomRig, granted: Boolean = true) {
        rig.phone.packageManager.mirrorServiceTypes[CallForegroundService::class.java.name] = phoneCall or microphone or camera
        rig.phone.granted.add(Manifest.permission.FOREGROUND_SERVICE_CAMERA)
        if (granted) rig.phone.granted.add(Manifest.permission.CAMERA)
    }

    @Test fun aVideoCallOfAnAppThatOptedInHoldsTheCameraTypeFromTheAnswerOn() {
        for (sdk in listOf(30, 34, 35)) {
            val rig = TelecomRig(sdk)
            optIntoCamera(rig)
            rig.ringing("v1", hasVideo = true).onAnswer()
            val service = rig.runForegroundService()
            assertEquals("$sdk", listOf(phoneCall or microphone or camera), service.mirrorForegroundTypes)
            assertTrue("$sdk: the visible app may use the camera", service.mirrorCameraAllowed)
        }
    }

    @Test fun withoutTheOptInOrCameraPermissionOrForAVoiceCallNoCameraTypeIsAskedFor() {
        val undeclared = TelecomRig(35)
        undeclared.phone.granted.add(Manifest.permission.CAMERA)
        undeclared.ringing("v1", hasVideo = true).onAnswer()
        assertEquals("the library's manifest declares no camera type", listOf(phoneCall or microphone),
                     undeclared.runForegroundService().mirrorForegroundTypes)

        val denied = TelecomRig(35)
        optIntoCamera(denied, granted = false)
        denied.ringing("v1", hasVideo = true).onAnswer()
        assertEquals(listOf(phoneCall or microphone), denied.runForegroundService().mirrorForegroundTypes)

        val voice = TelecomRig(35)
        optIntoCamera(voice)
        voice.ringing("a1", hasVideo = false).onAnswer()
        assertEquals(listOf(phoneCall or microphone), voice.runForegroundService().mirrorForegroundTypes)

        val old = TelecomRig(29)
        optIntoCamera(old)
        old.ringing("v1", hasVideo = true).onAnswer()
        assertEquals("before API 30 the camera has no while-in-use type to ask for", listOf(phoneCall or microphone),
                     old.runForegroundService().mirrorForegroundTypes)
    }

    /** An app that replaced the service's types without the microphone never gets a start Android refuses outright. */
    @Test fun anAppWhoseManifestDropsTheMicrophoneTypeStillHoldsItsCalls() {
        val rig = TelecomRig(35)
        rig.phone.packageManager.mirrorServiceTypes[CallForegroundService::class.java.name] = phoneCall or camera
        rig.phone.granted.addAll(listOf(Manifest.permission.CAMERA, Manifest.permission.FOREGROUND_SERVICE_CAMERA))
        val connection = rig.ringing("v1", hasVideo = true)
        connection.onAnswer()
        val service = rig.runForegroundService()
        assertEquals(listOf(phoneCall or camera), service.mirrorForegroundTypes)
        assertTrue(rig.phone.crashes.isEmpty())
    }

    /** One service for every call: a voice call answered beside a video call does not take the camera from it. */
    @Test fun aVoiceCallBesideAVideoCallKeepsTheCameraType() {
        val rig = TelecomRig(35)
        optIntoCamera(rig)
        val video = rig.ringing("v2", hasVideo = true)
        video.onAnswer()
        rig.runForegroundService()
        val voice = rig.ringing("a1", hasVideo = false)
        voice.onAnswer()
        val service = rig.runForegroundService()
        assertEquals(listOf(phoneCall or microphone or camera), service.mirrorForegroundTypes)
    }

    /** Android 14 refuses the while-in-use types in the background: the call goes on without them, never ends for it. */
    @Test fun aCameraRefusedInTheBackgroundFallsBackWithoutEndingTheCall() {
        val rig = TelecomRig(34)
        optIntoCamera(rig)
        val connection = rig.ringing("v1", hasVideo = true)
        connection.onAnswer()
        rig.phone.appVisible = false
        val service = rig.runForegroundService()
        assertEquals("the start that went through: neither camera nor microphone", listOf(phoneCall), service.mirrorForegroundTypes)
        assertFalse(service.mirrorStoppedSelf)
        assertTrue(rig.ui.isMicrophoneMissing)
        assertFalse(connection.state == Connection.STATE_DISCONNECTED)
    }

    @Test fun answeredCallHoldsAPhoneCallAndMicrophoneServiceFromTheAnswerOn() {
        for (sdk in listOf(29, 30, 34, 35)) {
            val rig = TelecomRig(sdk)
            val connection = rig.ringing("c1")
            connection.onAnswer()
            val answering = rig.runForegroundService()
            assertEquals("$sdk answered, not yet confirmed", listOf(phoneCall or microphone), answering.mirrorForegroundTypes)
            assertEquals(CallForegroundService.NOTIFICATION_ID, answering.mirrorForegroundId)
            val notification = answering.mirrorForegroundNotification
            assertEquals(IncomingCallNotification.ONGOING_CHANNEL_ID, notification.channelId)
            assertEquals(Notification.CATEGORY_CALL, notification.category)
            assertTrue("$sdk: the visible app may use the microphone", rig.phone.microphoneAvailable)

            val starts = rig.phone.started.size
            rig.actions.answers.getValue("c1")(true)
            assertEquals(Connection.STATE_ACTIVE, connection.state)
            assertEquals("$sdk: no second start once active", starts, rig.phone.started.size)
        }
    }

    @Test fun dialledCallHoldsAPhoneCallAndMicrophoneServiceFromTheDialOn() {
        val rig = TelecomRig(35)
        rig.ui.placeOutgoingCall("o1", dev.ringer.kit.Party("bob", "Bob"), hasVideo = false)
        rig.phone.telecomCreatesOutgoing(rig.service)
        // The user dialled from the app; the callee may answer after the user left it.
        val service = rig.runForegroundService()
        rig.phone.appVisible = false
        rig.ui.reportOutgoingCallConnected("o1", 5L)
        assertEquals(listOf(phoneCall or microphone), service.mirrorForegroundTypes)
        assertTrue(rig.phone.microphoneAvailable)
        assertEquals("Bob", service.mirrorForegroundNotification.mirrorTitle.toString())
    }

    @Test fun withoutRecordAudioAnActiveCallStaysPhoneCallOnlyAndIsNotRefused() {
        // Android 14 refuses a microphone type without RECORD_AUDIO (SecurityException); the mirror plays it.
        for (sdk in listOf(30, 34, 35)) {
            val rig = TelecomRig(sdk)
            rig.phone.granted.remove(Manifest.permission.RECORD_AUDIO)
            val connection = rig.active("c1")
            val service = rig.runForegroundService()
            assertEquals("$sdk", listOf(phoneCall), service.mirrorForegroundTypes)
            assertEquals(Connection.STATE_ACTIVE, connection.state)
            assertFalse(service.mirrorStoppedSelf)
        }
    }

    @Test fun beforeApi29TheServiceStartsUntyped() {
        val rig = TelecomRig(28)
        rig.active("c1")
        val service = rig.runForegroundService()
        assertEquals("the three-argument startForeground is API 29", listOf(-1), service.mirrorForegroundTypes)
    }

    @Test fun refusedServiceStartEndsTheCallWithErrorAndTellsTheServer() {
        val refusals = listOf(
            31 to ForegroundServiceStartNotAllowedException("startForegroundService() not allowed due to mAllowStartForeground false"),
            30 to IllegalStateException("Not allowed to start service Intent: app is in background"),
            35 to SecurityException("Starting FGS with type phoneCall requires permissions")
        )
        for ((sdk, refusal) in refusals) {
            val rig = TelecomRig(sdk)
            val connection = rig.ringing("c1")
            rig.phone.refuseForegroundStart = refusal
            connection.onAnswer()
            assertEquals("$sdk ${refusal.javaClass.simpleName}", DisconnectCause.ERROR, connection.disconnectCause.code)
            assertTrue(connection.mirrorDestroyed)
            assertEquals("the server is told (decline); the answer never sent", listOf("end c1"), rig.actions.log)
            assertEquals("the service is released", 1, rig.phone.stopped.size)
        }
    }

    @Test fun refusedStartForegroundEndsTheCallWithErrorStopsTheServiceAndTellsTheServer() {
        // Android 14 refuses the phoneCall type itself without MANAGE_OWN_CALLS (SecurityException, whatever the
        // other types), and any foreground start the background rules forbid (ForegroundServiceStartNotAllowedException).
        val refusals = listOf<Pair<String, (TelecomRig, CallForegroundService) -> Unit>>(
            "SecurityException" to { rig, _ -> rig.phone.granted.remove(Manifest.permission.MANAGE_OWN_CALLS) },
            "ForegroundServiceStartNotAllowedException" to { _, service -> service.mirrorStartForegroundFailure =
                ForegroundServiceStartNotAllowedException("startForeground() not allowed due to mAllowStartForeground false") }
        )
        for ((refusal, refuse) in refusals) {
            val rig = TelecomRig(34)
            val connection = rig.ringing("c1")
            connection.onAnswer()
            val service = rig.runForegroundService { refuse(rig, it) }
            assertTrue(service.mirrorStoppedSelf)
            assertNull("never foreground", service.mirrorForegroundNotification)
            assertEquals(refusal, DisconnectCause.ERROR, connection.disconnectCause.code)
            assertEquals(listOf("answer c1", "end c1"), rig.actions.log)
            assertEquals(1, rig.phone.stopped.size)
        }
    }

    @Test fun serviceStopsOnlyAfterTheLastCallEnds() {
        val rig = TelecomRig(35)
        rig.active("c1")
        rig.active("c2")
        // Android delivers every start (answering and active, per call) before the calls end.
        for (start in rig.phone.started.toList()) rig.phone.runForegroundService(start)
        rig.ui.reportCallEnded("c1", 1L, CallEndReason.REMOTE_ENDED)
        assertTrue("c2 still holds it", rig.phone.stopped.isEmpty())
        rig.ui.reportCallEnded("c2", 2L, CallEndReason.REMOTE_ENDED)
        assertEquals(CallForegroundService::class.java.name, rig.phone.stopped.single().component.className)
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun serviceStartedWithoutTheCallUiOrACallIdStopsItself() {
        val rig = TelecomRig(35)
        val noId = CallForegroundService()
        noId.mirrorAttach(rig.phone)
        noId.onStartCommand(Intent(rig.phone, CallForegroundService::class.java), 0, 1)
        assertTrue(noId.mirrorStoppedSelf)
        RingerComponents.callUi = null
        val noUi = CallForegroundService()
        noUi.mirrorAttach(rig.phone)
        noUi.onStartCommand(Intent(rig.phone, CallForegroundService::class.java).putExtra(RingerIntents.EXTRA_CALL_ID, "c1"), 0, 1)
        assertTrue(noUi.mirrorStoppedSelf)
        assertTrue(noUi.mirrorForegroundTypes.isEmpty())
    }

    @Test fun aCallThatEndsBeforeItsServiceWentForegroundLetsTheServiceStopItselfInsteadOfCrashing() {
        val rig = TelecomRig(35)
        val connection = rig.ringing("c1")
        connection.onAnswer()                         // startForegroundService: Android has yet to deliver it
        rig.actions.answers.getValue("c1")(false)     // the server refused at once: the call closes
        assertEquals(android.telecom.DisconnectCause.ERROR, connection.disconnectCause.code)
        assertTrue("not stopped while its start is pending (Android 8+ would crash the app)", rig.phone.stopped.isEmpty())
        val service = rig.runForegroundService()
        assertTrue("it went foreground first", service.mirrorForegroundTypes.isNotEmpty())
        assertTrue("then stopped itself", service.mirrorStoppedSelf)
        assertTrue(!rig.phone.foregroundServiceRunning)
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun aCallAnsweredFromAHeadsetInTheBackgroundStaysUpWithoutTheMicrophoneAndSaysSo() {
        // Android 14 refuses the microphone type while the app is in the background (answered from a headset, a
        // car or a watch): the answered call goes on with the phoneCall type instead of ending.
        val rig = TelecomRig(34)
        val connection = rig.ringing("c1")
        rig.phone.appVisible = false
        connection.onAnswer()
        val service = rig.runForegroundService()
        rig.actions.answers.getValue("c1")(true)
        assertEquals(listOf(phoneCall), service.mirrorForegroundTypes)
        assertFalse(rig.phone.microphoneAvailable)
        assertTrue(rig.ui.isMicrophoneMissing)
        assertEquals(rig.notifications.config.microphoneOffText, service.mirrorForegroundNotification.mirrorText.toString())
        assertEquals("the answered call survives", Connection.STATE_ACTIVE, connection.state)
        assertEquals("nothing ended on the server", listOf("answer c1", "audio on"), rig.actions.log)
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun aMicrophoneRefusedInTheBackgroundStartsOnceTheAppIsInFront() {
        val rig = TelecomRig(34)
        val connection = rig.ringing("c1")
        rig.phone.appVisible = false
        connection.onAnswer()
        rig.runForegroundService()
        rig.actions.answers.getValue("c1")(true)
        assertFalse(rig.phone.microphoneAvailable)
        // The user taps the call's notification: the call activity opens, and the app tells the SDK.
        rig.phone.appVisible = true
        val before = rig.phone.started.size
        rig.ui.appInForeground()
        assertEquals("the service is started again, now in front", before + 1, rig.phone.started.size)
        val service = rig.runForegroundService()
        assertEquals(listOf(phoneCall or microphone), service.mirrorForegroundTypes)
        assertTrue(rig.phone.microphoneAvailable)
        assertFalse(rig.ui.isMicrophoneMissing)
        assertEquals(rig.notifications.config.ongoingText, service.mirrorForegroundNotification.mirrorText.toString())
        val starts = rig.phone.started.size
        rig.ui.appInForeground()
        assertEquals("with its microphone on, nothing more is asked", starts, rig.phone.started.size)
    }

    @Test fun onAndroid11To13TheMicrophoneIsAskedForAgainWhenTheAppComesToTheFront() {
        // Android 11-13 accept the microphone type from the background but give the service no microphone.
        val rig = TelecomRig(33)
        val connection = rig.ringing("c1")
        rig.phone.appVisible = false
        connection.onAnswer()
        val background = rig.runForegroundService()
        assertEquals(listOf(phoneCall or microphone), background.mirrorForegroundTypes)
        assertFalse(rig.phone.microphoneAvailable)
        rig.phone.appVisible = true
        rig.ui.appInForeground()
        rig.runForegroundService()
        assertTrue(rig.phone.microphoneAvailable)
    }

    @Test fun whenOneOfTwoCallsEndsTheForegroundNotificationFollowsTheRemainingCall() {
        val rig = TelecomRig(35)
        rig.active("c1")
        rig.ringing("c2").onAnswer()
        for (start in rig.phone.started.toList()) rig.phone.runForegroundService(start)
        assertEquals("c2", rig.phone.started.last().getStringExtra(RingerIntents.EXTRA_CALL_ID))
        rig.ui.reportCallEnded("c2", 1L, CallEndReason.REMOTE_ENDED)
        val next = rig.phone.started.last()
        assertEquals("the service now shows c1", "c1", next.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertTrue("c1 keeps its microphone", next.getBooleanExtra(RingerIntents.EXTRA_MICROPHONE, false))
        val service = rig.runForegroundService()
        val hangUp = (service.mirrorForegroundNotification.mirrorStyle as Notification.CallStyle).mirrorHangUpIntent
        assertEquals("its hang-up ends the remaining call", "c1", hangUp.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertTrue("still held", rig.phone.stopped.isEmpty())
        rig.ui.reportCallEnded("c1", 2L, CallEndReason.REMOTE_ENDED)
        assertEquals(1, rig.phone.stopped.size)
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun aDeclinedRingingCallNeverTouchesTheServiceAnAnsweredOneHolds() {
        val rig = TelecomRig(35)
        rig.active("c1")
        for (start in rig.phone.started.toList()) rig.phone.runForegroundService(start)
        val startsBefore = rig.phone.started.size
        rig.ringing("c2").onReject()
        assertTrue("the answered call keeps its service", rig.phone.stopped.isEmpty())
        assertEquals("and its notification", startsBefore, rig.phone.started.size)
    }
}
