package dev.ringer.android

import android.Manifest
import dev.ringer.kit.ReadinessCheck
import dev.ringer.kit.ReadinessFacts
import dev.ringer.kit.ReadinessProblem
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import dev.ringer.lab.app.MirrorPhone

class AndroidReadinessTest {
    private val nowMs = 1_800_000_000_000L

    /** A phone where everything is granted; [change] takes one thing away. */
    private fun phone(sdk: Int, change: (MirrorPhone) -> Unit = {}): MirrorPhone {
        val phone = MirrorPhone(sdk)
        phone.power.mirrorIgnoringOptimizations.add(phone.packageName)
        change(phone)
        return phone
    }

    private fun facts(phone: MirrorPhone): ReadinessFacts =
        AndroidReadiness(phone, phone.notificationManager, phone.power, phone.sdkInt).read()
            .toReadinessFacts("fcm-token", nowMs - 1000L)

    private fun problems(phone: MirrorPhone): List<String> = ReadinessCheck.evaluate(facts(phone), nowMs)

    @Test fun readsEachFactFromTheSystem() {
        val p = phone(35)
        assertEquals(AndroidReadinessFacts(35, true, true, true, true), AndroidReadiness(p, p.notificationManager, p.power, 35).read())
        val q = MirrorPhone(34)
        q.notificationManager.mirrorNotificationsEnabled = false
        q.notificationManager.mirrorCanUseFullScreenIntent = false
        q.granted.remove(Manifest.permission.MANAGE_OWN_CALLS)
        assertEquals(AndroidReadinessFacts(34, false, false, false, false), AndroidReadiness(q, q.notificationManager, q.power, 34).read())
    }

    @Test fun telecomIsReadFromTheDevicesFeaturesAndItsAbsenceIsAnAndroidProblem() {
        for (sdk in listOf(26, 32, 33, 35)) {
            assertTrue("$sdk", AndroidReadiness.telecomSupported(MirrorPhone(sdk), sdk))
            assertFalse("$sdk", AndroidReadiness.telecomSupported(MirrorPhone(sdk, hasTelecom = false), sdk))
        }
        val p = phone(35)
        assertEquals(emptyList<String>(), AndroidReadiness(p, p.notificationManager, p.power, 35).read().androidProblems())
        val without = AndroidReadiness(p, p.notificationManager, p.power, 35, telecomAvailable = false).read()
        assertEquals(listOf(AndroidReadinessProblem.TELECOM_UNSUPPORTED), without.androidProblems())
        assertTrue("the server keeps it", ReadinessProblem.isWellFormed(AndroidReadinessProblem.TELECOM_UNSUPPORTED))
    }

    @Test fun readyPhoneHasNoProblemsAtEveryLevel() {
        for (sdk in 26..35) assertEquals("$sdk", emptyList<String>(), problems(phone(sdk)))
    }

    @Test fun mappingCarriesEveryFactAndTheToken() {
        val facts = facts(phone(35))
        assertEquals(ReadinessFacts(true, true, true, true, "fcm-token", nowMs - 1000L), facts)
        assertFalse("the token never reaches toString", facts.toString().contains("fcm-token"))
        val none = AndroidReadinessFacts(35, true, true, true, true).toReadinessFacts(null, null)
        assertNull(none.fcmToken)
        assertEquals(listOf(ReadinessProblem.NO_PUSH_TOKEN), ReadinessCheck.evaluate(none, nowMs))
    }

    @Test fun notificationsOffIsReportedAtEveryLevel() {
        for (sdk in listOf(26, 32, 33, 35)) {
            val p = phone(sdk) { it.notificationManager.mirrorNotificationsEnabled = false }
            assertEquals("$sdk", listOf(ReadinessProblem.NOTIFICATIONS_DISABLED), problems(p))
        }
    }

    @Test fun fullScreenIntentDeniedIsReportedFromApi34AndDoesNotApplyBelow() {
        for (sdk in 34..35) {
            val p = phone(sdk) { it.notificationManager.mirrorCanUseFullScreenIntent = false }
            assertEquals("$sdk", false, facts(p).canUseFullScreenIntent)
            assertEquals("$sdk", listOf(ReadinessProblem.FULL_SCREEN_INTENT_DENIED), problems(p))
            assertEquals("$sdk granted", true, facts(phone(sdk)).canUseFullScreenIntent)
        }
        for (sdk in 26..33) {
            // The mirror's switch says "denied", but below API 34 there is no such permission to ask about.
            val p = phone(sdk) { it.notificationManager.mirrorCanUseFullScreenIntent = false }
            assertNull("$sdk: does not apply", facts(p).canUseFullScreenIntent)
            assertEquals("$sdk", emptyList<String>(), problems(p))
        }
    }

    @Test fun batteryOptimisedIsReportedAtEveryLevel() {
        for (sdk in listOf(26, 30, 34, 35)) {
            val p = phone(sdk) { it.power.mirrorIgnoringOptimizations.clear() }
            assertEquals("$sdk", listOf(ReadinessProblem.BATTERY_OPTIMIZED), problems(p))
        }
    }

    @Test fun missingManageOwnCallsIsReportedAtEveryLevel() {
        for (sdk in listOf(26, 30, 34, 35)) {
            val p = phone(sdk) { it.granted.remove(Manifest.permission.MANAGE_OWN_CALLS) }
            assertEquals("$sdk", listOf(ReadinessProblem.CALLS_NOT_PERMITTED), problems(p))
        }
    }

    @Test fun everyProblemAtOnceOnApi34InTheCoresOrder() {
        val p = phone(34) {
            it.notificationManager.mirrorNotificationsEnabled = false
            it.notificationManager.mirrorCanUseFullScreenIntent = false
            it.power.mirrorIgnoringOptimizations.clear()
            it.granted.remove(Manifest.permission.MANAGE_OWN_CALLS)
        }
        val found = problems(p)
        assertEquals(
            listOf(
                ReadinessProblem.NOTIFICATIONS_DISABLED, ReadinessProblem.FULL_SCREEN_INTENT_DENIED,
                ReadinessProblem.BATTERY_OPTIMIZED, ReadinessProblem.CALLS_NOT_PERMITTED
            ),
            found
        )
        assertTrue(found.isNotEmpty())
    }

    @Test fun anIncomingCallChannelTheUserTurnedOffIsReportedAsNotificationsDisabled() {
        val phone = phone(35)
        val notifications = IncomingCallNotification(phone, phone.notificationManager, CallNotificationConfig(TestCallActivity::class.java, 7), 35)
        notifications.createChannels()
        assertEquals("a created channel is fine", listOf<String>(), problems(phone))
        phone.notificationManager.getNotificationChannel(IncomingCallNotification.INCOMING_CHANNEL_ID)!!
            .setImportance(android.app.NotificationManager.IMPORTANCE_NONE)
        assertEquals(listOf(dev.ringer.kit.ReadinessProblem.NOTIFICATIONS_DISABLED), problems(phone))
    }
}
