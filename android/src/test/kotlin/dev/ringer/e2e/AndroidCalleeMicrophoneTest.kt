package dev.ringer.e2e

import android.app.Notification
import android.telecom.Connection
import dev.ringer.android.CallNotificationConfig
import dev.ringer.android.TestCallActivity
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test

/**
 * An answered call has a microphone, end to end, on the simulated Android 15 phone, whose foreground services get
 * one only when started while the app is visible (Android 14 refuses the type otherwise).
 */
class AndroidCalleeMicrophoneTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    private val texts = CallNotificationConfig(TestCallActivity::class.java, 1)

    @Test
    fun aCallAnsweredOnTheNotificationKeepsItsMicrophoneWhenTheUserLeavesBeforeTheServerConfirms() {
        CalleeScene.start(cluster!!).use { s ->
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val app = s.app()
            app.awaitState(callId, Connection.STATE_RINGING)
            s.phone.network.hold { method, url -> method == "POST" && url.endsWith("/v1/calls/$callId/accept") }
            // The lock screen's answer action opens the call activity, which answers.
            assertEquals(callId, app.tapNotification(callId) { (it.mirrorStyle as Notification.CallStyle).mirrorAnswerIntent })
            SimulatedAndroidPhone.poll(8_000) { if (s.phone.network.held.isNotEmpty()) true else null }
                ?: throw AssertionError("the answer never sent its accept")
            // Android delivers the service's start on the main thread while the tapped activity is in front; the
            // user cannot lock the phone before that (a loaded test machine once hid the app first).
            app.awaitTelecom()
            app.context.appVisible = false          // the user locks the phone while the accept is on its way
            s.phone.network.release()
            app.awaitState(callId, Connection.STATE_ACTIVE)
            s.alice.awaitCallState(callId, "accepted")
            app.awaitTelecom()
            assertTrue("the answered call has a microphone", app.context.microphoneAvailable)
            assertEquals(listOf<Any>(), s.phone.crashes)
        }
    }

    @Test
    fun aCallAnsweredFromAHeadsetInTheBackgroundGetsItsMicrophoneWhenTheUserOpensTheCall() {
        CalleeScene.start(cluster!!).use { s ->
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val app = s.app()
            app.awaitState(callId, Connection.STATE_RINGING)
            app.answer(callId)                      // Telecom's onAnswer: the app was woken by FCM, never opened
            app.awaitState(callId, Connection.STATE_ACTIVE)
            app.awaitTelecom()
            assertFalse("Android gave the background start no microphone", app.context.microphoneAvailable)
            assertEquals("the call says so", texts.microphoneOffText, app.context.foregroundNotification?.mirrorText?.toString())
            // The user taps the ongoing call's notification: the call activity opens in front.
            assertEquals(callId, app.tapNotification(callId) { it.contentIntent })
            app.awaitTelecom()
            assertTrue("the answered call has its microphone now", app.context.microphoneAvailable)
            assertEquals(texts.ongoingText, app.context.foregroundNotification?.mirrorText?.toString())
            assertEquals("accepted", s.alice.getCall(callId).getString("state"))
            assertEquals(listOf<Any>(), s.phone.crashes)
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster()
        private val cluster: RingerCluster? get() = shared.current
    }
}
