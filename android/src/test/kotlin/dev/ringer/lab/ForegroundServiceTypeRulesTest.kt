package dev.ringer.lab

import android.Manifest
import android.app.Notification
import android.app.Service
import android.content.Intent
import android.content.pm.ServiceInfo
import android.os.IBinder
import dev.ringer.lab.app.MirrorPhone
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/**
 * Android 14's foreground-service type rules as the mirror's `Service.startForeground` plays them for every phone of
 * the host (developer.android.com, "Foreground service types" and "Restrictions on starting a foreground service from
 * the background", while-in-use permissions): checked on a bare service, so the rule holds whatever the SDK asks for.
 */
class ForegroundServiceTypeRulesTest {
    private val phoneCall = ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL
    private val microphone = ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE

    /** A service of an app on [phone] at API [sdk], with no behaviour of its own. */
    private class BareService(phone: MirrorPhone, sdk: Int) : Service() {
        init {
            attachBaseContext(phone)
            mirrorSdkInt = sdk
        }

        override fun onBind(intent: Intent?): IBinder? = null
    }

    /** The `SecurityException` that starting [service] in the foreground as [type] throws; fails when none is thrown. */
    private fun refusal(service: Service, type: Int): SecurityException {
        try {
            service.startForeground(1, Notification(), type)
        } catch (refused: SecurityException) {
            return refused
        }
        fail("startForeground($type) was not refused")
        throw IllegalStateException()
    }

    @Test
    fun aMicrophoneServiceWithoutRecordAudioIsRefusedWithASecurityExceptionFromAndroid14() {
        val phone = MirrorPhone(34)
        phone.granted.remove(Manifest.permission.RECORD_AUDIO)
        val service = BareService(phone, 34)
        assertTrue(refusal(service, phoneCall or microphone).message!!.contains("RECORD_AUDIO"))
        assertTrue("never foreground", service.mirrorForegroundTypes.isEmpty())
        // The same call as phoneCall alone is allowed: the app may go on without the microphone.
        service.startForeground(1, Notification(), phoneCall)
        assertEquals(listOf(phoneCall), service.mirrorForegroundTypes)
        assertFalse(service.mirrorMicrophoneAllowed)
    }

    @Test
    fun beforeAndroid14AMicrophoneServiceWithoutRecordAudioStartsButGetsNoMicrophone() {
        val phone = MirrorPhone(33)
        phone.granted.remove(Manifest.permission.RECORD_AUDIO)
        val service = BareService(phone, 33)
        service.startForeground(1, Notification(), phoneCall or microphone)
        assertEquals(listOf(phoneCall or microphone), service.mirrorForegroundTypes)
        assertFalse(service.mirrorMicrophoneAllowed)
    }

    @Test
    fun aMicrophoneServiceStartedWhileTheAppIsNotVisibleIsRefusedFromAndroid14() {
        val phone = MirrorPhone(34)
        phone.appVisible = false
        assertTrue(refusal(BareService(phone, 34), phoneCall or microphone).message!!.contains("background"))
        phone.appVisible = true
        val visible = BareService(phone, 34)
        visible.startForeground(1, Notification(), phoneCall or microphone)
        assertTrue("granted and visible: the microphone is the service's", visible.mirrorMicrophoneAllowed)
    }

    @Test
    fun aPhoneCallServiceWithoutManageOwnCallsIsRefusedWithASecurityExceptionFromAndroid14() {
        val phone = MirrorPhone(34)
        phone.granted.remove(Manifest.permission.MANAGE_OWN_CALLS)
        assertTrue(refusal(BareService(phone, 34), phoneCall).message!!.contains("MANAGE_OWN_CALLS"))
        BareService(phone, 33).startForeground(1, Notification(), phoneCall)
    }
}
