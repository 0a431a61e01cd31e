package dev.ringer.android

import android.Manifest
import android.app.ForegroundServiceStartNotAllowedException
import android.content.pm.ServiceInfo
import android.telecom.Connection
import android.telecom.DisconnectCause
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/** The call's foreground service: its types, and the system refusing it (Android 12 and 14 rules). */
class CallForegroundServiceTest {
    @After fun forgetComponents() { RingerComponents.callUi = null }

    private fun answered(rig: TelecomRig, callId: String = "c1"): Connection {
        val connection = rig.ringing(callId)
        connection.onAnswer()
        return connection
    }

    @Test
    fun anAnsweredCallHoldsAPhoneCallServiceAndAddsTheMicrophoneOnlyOnceActiveAndGranted() {
        val rig = TelecomRig()
        val connection = answered(rig)
        val ringingService = rig.phone.runForegroundService()
        assertEquals("answering: phoneCall only", ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL, ringingService.mirrorForegroundType)
        rig.actions.answers.getValue("c1")(true)
        assertEquals(Connection.STATE_ACTIVE, connection.state)
        val activeService = rig.phone.runForegroundService()
        assertEquals(ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL or ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE,
                     activeService.mirrorForegroundType)
        assertEquals(CallForegroundService.NOTIFICATION_ID, activeService.mirrorForegroundId)
    }

    @Test
    fun withoutRecordAudioTheActiveCallKeepsThePhoneCallTypeOnly() {
        val rig = TelecomRig()
        rig.phone.granted.remove(Manifest.permission.RECORD_AUDIO)
        answered(rig)
        rig.actions.answers.getValue("c1")(true)
        // Android 14 refuses a microphone type without RECORD_AUDIO (SecurityException): it is never asked for.
        assertEquals(ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL, rig.phone.runForegroundService().mirrorForegroundType)
    }

    @Test
    fun aStartTheSystemRefusesEndsTheCallWithErrorAndTellsTheCoreButKeepsTheAppAlive() {
        val rig = TelecomRig()
        rig.phone.refuseForegroundStart = ForegroundServiceStartNotAllowedException("startForegroundService() not allowed")
        val connection = answered(rig)
        assertEquals(DisconnectCause.ERROR, connection.disconnectCause.code)
        assertEquals("the core ends it on the server", listOf("end c1"), rig.actions.log)
        assertTrue(rig.actions.answers.isEmpty())
    }

    @Test
    fun startForegroundRefusedInsideTheServiceEndsTheCallToo() {
        val rig = TelecomRig()
        val connection = answered(rig)
        val service = rig.phone.runForegroundService { it.mirrorStartForegroundFailure = SecurityException("FOREGROUND_SERVICE_PHONE_CALL") }
        assertTrue(service.mirrorStoppedSelf)
        assertEquals(DisconnectCause.ERROR, connection.disconnectCause.code)
        assertEquals(listOf("answer c1", "end c1"), rig.actions.log)
    }

    @Test
    fun theServiceStopsWhenTheLastCallEndsNotBefore() {
        val rig = TelecomRig()
        answered(rig, "c1")
        rig.actions.answers.getValue("c1")(true)
        answered(rig, "c2")
        rig.ui.reportCallEnded("c1", 1L, dev.ringer.kit.CallEndReason.REMOTE_ENDED)
        assertTrue("another call still holds it", rig.phone.stopped.isEmpty())
        rig.ui.reportCallEnded("c2", 2L, dev.ringer.kit.CallEndReason.REMOTE_ENDED)
        assertEquals(1, rig.phone.stopped.size)
    }

    @Test
    fun aServiceStartedWithoutTheFacadeStopsItselfInsteadOfCrashing() {
        val rig = TelecomRig()
        answered(rig)
        RingerComponents.callUi = null   // the process was restarted by the system without Application.onCreate's façade
        assertTrue(rig.phone.runForegroundService().mirrorStoppedSelf)
    }
}
