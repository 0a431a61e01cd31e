package dev.ringer.reactnative

import android.app.Notification
import android.telecom.Connection
import dev.ringer.e2e.Admin
import dev.ringer.e2e.HttpUser
import dev.ringer.e2e.PrintLogsOnFailure
import dev.ringer.e2e.RingerCluster
import dev.ringer.e2e.SharedCluster
import dev.ringer.e2e.SimulatedAndroidPhone
import dev.ringer.kit.CallCoordinator.Observation
import dev.ringer.kit.EventStream
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test

/**
 * The React Native package end to end, as its issue asks: real `ringer serve` and the FCM sandbox, the SDK's classes
 * in the simulated app process, the package's host started as the library's provider starts it, and JavaScript
 * played by calling the `Ringer` module as React Native does. A killed app is woken by FCM, the call is answered
 * from the notification before any JavaScript exists, the server hears the answer, the app's Headless JS task is
 * started after it (the app opted in), and JavaScript, once it starts, is told what it missed, once.
 */
class ReactNativeColdStartTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    /** The simulated process is gone: the next test's start makes a host of its own. */
    @After
    fun forgetTheProcess() {
        ReactNativeRig.endProcess(null)
    }

    @Test
    fun aCallAnsweredFromTheNotificationOfAKilledAppIsAcceptedWithNoJavaScriptAndReplayedToItOnce() {
        val cluster = cluster!!
        val admin = Admin(cluster)
        val alice = admin.newUser("alice", "Alice")
        val bobId = "bob-${RingerCluster.randomHex(4)}"
        val bob = HttpUser(cluster, bobId, admin.mintToken(bobId, "Bob"))
        val app = ReactNativeApp(headlessTaskAfterAnswer = true)
        SimulatedAndroidPhone(cluster, bobId, userToken = null, startApp = { app.start(it) }).use { phone ->
            // The first launch: JavaScript configures and logs in; the native half keeps the token.
            phone.launch()
            val first = app.javaScript()
            assertEquals(cluster.serverUrl, (first.configure().value() as Map<*, *>)["server"])
            assertEquals(mapOf("userId" to bobId), first.call { m, p -> m.login(bob.token, p) }.value())
            phone.awaitRegistered(bob)
            phone.awaitStatus("connected") { it == EventStream.Status.Connected }
            phone.kill()

            // Alice calls: FCM starts the killed app, whose host logs Bob in natively; the call rings.
            val callId = alice.placeCall(bobId).getString("call_id")
            val process = SimulatedAndroidPhone.poll(8_000) { phone.running } ?: throw AssertionError("the message started no process")
            process.awaitState(callId, Connection.STATE_RINGING)

            // Answer on the lock screen: the launch activity opens with the answer intent; still no JavaScript.
            app.tap(process, callId) { (it.mirrorStyle as Notification.CallStyle).mirrorAnswerIntent }
            val accepted = alice.awaitCallState(callId, "accepted", timeoutMs = 8_000)
            assertEquals(process.phone.deviceId, accepted.getString("accepted_device_id"))
            process.awaitState(callId, Connection.STATE_ACTIVE)
            phone.awaitObservation("media start") { it is Observation.MediaCanStart && it.callId == callId }

            // The answer was taken by no JavaScript: the app's Headless JS task starts, with the call id and direction.
            val task = SimulatedAndroidPhone.poll(8_000) { process.context.servicesStarted.firstOrNull() }
                ?: throw AssertionError("the Headless JS task was not started")
            assertEquals(RingerHeadlessTaskService::class.java.name, task.component?.className)
            assertEquals(callId, task.getStringExtra(RingerHeadlessTaskService.EXTRA_CALL_ID))
            assertEquals("incoming", task.getStringExtra(RingerHeadlessTaskService.EXTRA_DIRECTION))

            // JavaScript starts: it configures, then asks what it missed, once.
            val js = app.javaScript()
            val state = js.configure().value() as Map<*, *>
            assertEquals(bobId, state["userId"])
            assertEquals(listOf("active"), (state["calls"] as List<*>).map { (it as Map<*, *>)["state"] })
            val initial = js.call { m, p -> m.getInitialEvents(p) }.value()
            val missed = JavaScript.of(callId, initial)
            assertEquals(listOf("incoming", "accepted"), missed.map { it["type"] })
            assertEquals(mapOf("id" to alice.userId, "name" to "Alice"), missed[0]["caller"])
            assertEquals("incoming", missed[1]["direction"])
            assertEquals("a LiveKit-style JWT", 3, ((missed[1]["media"] as Map<*, *>)["token"] as String).split('.').size)
            assertEquals("once", listOf<Any>(), js.call { m, p -> m.getInitialEvents(p) }.value())

            // During the call: no logout, no other user.
            assertEquals(BridgeError.CALL_IN_PROGRESS, js.call { m, p -> m.logout(p) }.code())
            val carol = admin.mintToken("carol-${RingerCluster.randomHex(4)}", "Carol")
            assertEquals(BridgeError.OTHER_USER_LOGGED_IN, js.call { m, p -> m.login(carol, p) }.code())

            // JavaScript hangs up: the end goes to the server and comes back to JavaScript live, through emitOnEvent.
            assertEquals(null, js.call { m, p -> m.hangUp(callId, p) }.value())
            alice.awaitCallState(callId, "ended", timeoutMs = 8_000)
            val ended = SimulatedAndroidPhone.poll(8_000) { JavaScript.of(callId, js.emitted).firstOrNull() }
                ?: throw AssertionError("no live event for $callId: ${js.emitted}")
            assertEquals(mapOf("type" to "ended", "callId" to callId, "reason" to "local", "serverReason" to null), ended)

            val history = js.call { m, p -> m.getCallHistory(5.0, p) }.value() as List<*>
            val entry = history.first() as Map<*, *>
            assertEquals(listOf(callId, true, "local"), listOf(entry["callId"], entry["answered"], entry["reason"]))
            assertTrue(phone.crashes.toString(), phone.crashes.isEmpty())
            assertEquals("one task, for the one answer no JavaScript took", 1, process.context.servicesStarted.size)
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster()
        private val cluster: RingerCluster? get() = shared.current
    }
}
