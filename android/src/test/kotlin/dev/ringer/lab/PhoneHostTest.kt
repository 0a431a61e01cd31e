package dev.ringer.lab

import dev.ringer.e2e.Admin
import dev.ringer.e2e.HttpUser
import dev.ringer.e2e.PlainHttp
import dev.ringer.e2e.PrintLogsOnFailure
import dev.ringer.e2e.RingerCluster
import dev.ringer.e2e.SharedCluster
import dev.ringer.e2e.SimulatedAndroidPhone
import org.json.JSONArray
import org.json.JSONObject
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test

/**
 * The phone host as the scenario runner will use it: a child JVM driven over its protocol, its phones the real SDK
 * over the mirror, against a real `ringer serve` and `ringer-lab sandbox` (FCM over the sandbox's phone socket).
 */
class PhoneHostTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    private val host: PhoneHostProcess by lazy { PhoneHostProcess.launch().also { it.start(cluster!!) } }

    @After fun stopHost() {
        host.close()
        assertTrue("the host wrote non-protocol lines: ${host.strayLines}", host.strayLines.isEmpty())
    }

    /** A new user with a phone in the host, in [fields]' state. @return the user. */
    private fun phone(name: String, fields: JSONObject = JSONObject()): HttpUser {
        val admin = Admin(cluster!!)
        val userId = "$name-${RingerCluster.randomHex(4)}"
        val user = HttpUser(cluster!!, userId, admin.mintToken(userId, name))
        host.ok("add_phone", fields.put("phone", name).put("user_id", userId).put("device_id", "$name-pixel")
            .put("user_token", user.token))
        return user
    }

    private fun caller(): HttpUser = Admin(cluster!!).newUser("alice", "Alice")

    @Test
    fun aSwipedAwayAppOnALockedPhoneIsStartedByTheMessageRingsFullScreenAndIsAnswered() {
        val bob = phone("bob", JSONObject().put("app_state", "swiped_away").put("locked", true)
            .put("behaviour", JSONObject().put("answer_after", 0.3)))
        val alice = caller()
        val callId = alice.placeCall(bob.userId).getString("call_id")
        host.awaitEvent("bob", "started_by_message")
        val ringing = host.awaitEvent("bob", "ringing") { it.getString("call_id") == callId }
        assertEquals("full_screen", ringing.getString("presentation"))
        host.awaitEvent("bob", "user_answered") { it.getString("call_id") == callId }
        host.awaitEvent("bob", "media_ready") { it.getString("call_id") == callId }
        host.awaitEvent("bob", "call_active") { it.getString("call_id") == callId }
        host.awaitEvent("bob", "foreground_service_started") { it.getString("call_id") == callId }
        alice.awaitCallState(callId, "accepted")
        alice.end(callId)
        val ended = host.awaitEvent("bob", "call_ended") { it.getString("call_id") == callId }
        assertEquals("REMOTE", ended.getString("cause"))
    }

    @Test
    fun aDeclineFromTheCallScreenEndsTheConnectionRejectedAndTheCallDeclined() {
        val bob = phone("bob", JSONObject().put("behaviour", JSONObject().put("decline_after", 0.2)))
        val alice = caller()
        val callId = alice.placeCall(bob.userId).getString("call_id")
        assertEquals("in_app", host.awaitEvent("bob", "ringing").getString("presentation"))
        host.awaitEvent("bob", "user_declined") { it.getString("call_id") == callId }
        assertEquals("REJECTED", host.awaitEvent("bob", "call_ended").getString("cause"))
        alice.awaitCallState(callId, "declined")
    }

    @Test
    fun aForceStoppedAppIsDeliveredNothingAndDoesNotRing() {
        val bob = phone("bob", JSONObject().put("app_state", "force_stopped"))
        val alice = caller()
        val callId = alice.placeCall(bob.userId).getString("call_id")
        host.awaitEvent("bob", "message_not_delivered")
        alice.awaitCallState(callId, "unanswered", timeoutMs = 10_000)
        val names = host.eventNames("bob")
        assertFalse("it rang: $names", names.contains("ringing"))
        assertFalse("a process started: $names", names.contains("started_by_message"))
    }

    @Test
    fun aForceStoppedAppStaysStoppedWhenSwipedOrLeftAndIsDeliveredMessagesOnlyOnceOpened() {
        val bob = phone("bob", JSONObject().put("app_state", "force_stopped"))
        // Swiping or leaving an app that does not run changes nothing: only the user opening it ends the stopped state.
        host.ok("set_app_state", JSONObject().put("phone", "bob").put("state", "swiped_away"))
        host.ok("set_app_state", JSONObject().put("phone", "bob").put("state", "background"))
        val alice = caller()
        val first = alice.placeCall(bob.userId).getString("call_id")
        host.awaitEvent("bob", "message_not_delivered")
        alice.awaitCallState(first, "unanswered", timeoutMs = 10_000)
        val names = host.eventNames("bob")
        assertFalse("it rang: $names", names.contains("ringing"))
        assertFalse("a process started: $names", names.contains("started_by_message"))
        host.ok("set_app_state", JSONObject().put("phone", "bob").put("state", "foreground"))
        val second = alice.placeCall(bob.userId).getString("call_id")
        host.awaitEvent("bob", "ringing") { it.getString("call_id") == second }
    }

    @Test
    fun aStopMessageThatEndsARingingCallIsAckedUserVisibleToFcm() {
        // A frozen background app has no event socket: the FCM stop is what ends its ringing call.
        val admin = Admin(cluster!!)
        val userId = "bob-${RingerCluster.randomHex(4)}"
        val bob = HttpUser(cluster!!, userId, admin.mintToken(userId, "bob"))
        val token = host.ok("add_phone", JSONObject().put("phone", "bob").put("user_id", userId).put("device_id", "bob-pixel")
            .put("user_token", bob.token).put("app_state", "background")).getString("fcm_token")
        val alice = caller()
        val callId = alice.placeCall(userId).getString("call_id")
        host.awaitEvent("bob", "ringing") { it.getString("call_id") == callId }
        alice.cancel(callId)
        assertEquals("REMOTE", host.awaitEvent("bob", "call_ended") { it.getString("call_id") == callId }.getString("cause"))
        // The call screen went away, which the user sees: FCM must not count the message toward demotion.
        val client = PlayServices.sandboxClient(cluster!!.caFile)
        val stop = SimulatedAndroidPhone.poll(8_000) {
            val answer = PlainHttp.send(client, "GET", "${cluster!!.fcmSandboxUrl}/sandbox/messages", null, null)
            val all = JSONArray(answer.body)
            (0 until all.length()).map { all.getJSONObject(it) }.firstOrNull {
                it.optString("token") == token && it.has("receipt") &&
                    it.getJSONObject("data").optString("ringer").contains("call.cancelled")
            }
        } ?: throw AssertionError("no receipt for the stop message to $token")
        // The phone's ringing acknowledgement races the cancel: when it reaches the server after the cancel, its
        // refusal (`request_failed`) ends the call first, and the stop then finds nothing ringing: silent, rightly.
        val ringingRefused = host.events("bob").any {
            it.getString("event") == "request_failed" && it.optString("call_id") == callId
        }
        assertEquals(if (ringingRefused) "silent" else "userVisible", stop.getString("receipt"))
    }

    @Test
    fun aMessageAndroidWithheldIsAckedToFcmWithWhyItWasWithheld() {
        val admin = Admin(cluster!!)
        val userId = "bob-${RingerCluster.randomHex(4)}"
        val bob = HttpUser(cluster!!, userId, admin.mintToken(userId, "bob"))
        val token = host.ok("add_phone", JSONObject().put("phone", "bob").put("user_id", userId).put("device_id", "bob-pixel")
            .put("user_token", bob.token).put("app_state", "force_stopped")).getString("fcm_token")
        caller().placeCall(userId)
        val withheld = host.awaitEvent("bob", "message_not_delivered").getString("reason")
        // The sandbox keeps the ack's reason as the message's fate: the race explorer tells a force-stopped app's
        // rightly withheld message from a lost one by it.
        val client = PlayServices.sandboxClient(cluster!!.caFile)
        val receipt = SimulatedAndroidPhone.poll(8_000) {
            val answer = PlainHttp.send(client, "GET", "${cluster!!.fcmSandboxUrl}/sandbox/messages", null, null)
            val all = JSONArray(answer.body)
            (0 until all.length()).map { all.getJSONObject(it) }.firstOrNull { it.optString("token") == token && it.has("receipt") }
        } ?: throw AssertionError("no receipt for the message to $token")
        assertEquals("notDelivered", receipt.getString("receipt"))
        assertEquals(withheld, receipt.getString("reason"))
        assertTrue(withheld, withheld.contains("force-stopped"))
    }

    @Test
    fun aFrozenBackgroundAppRingsAsAHeadsUpInItsRunningProcess() {
        val bob = phone("bob", JSONObject().put("app_state", "background"))
        val alice = caller()
        val callId = alice.placeCall(bob.userId).getString("call_id")
        val ringing = host.awaitEvent("bob", "ringing") { it.getString("call_id") == callId }
        assertEquals("heads_up", ringing.getString("presentation"))
        val received = host.awaitEvent("bob", "message_received") { it.optString("call_id") == callId }
        assertEquals("HIGH", received.getString("priority"))
        assertEquals("ringing", received.getString("disposition"))
        assertFalse(host.eventNames("bob").contains("started_by_message"))
        alice.cancel(callId)
        host.awaitEvent("bob", "call_ended") { it.getString("call_id") == callId }
    }

    @Test
    fun twoPhonesInOneHostEachRingTheirOwnCallAndAreAnsweredApart() {
        val bob = phone("bob", JSONObject().put("app_state", "swiped_away"))
        val carol = phone("carol", JSONObject().put("app_state", "swiped_away"))
        val alice = caller()
        val dave = caller()
        val toBob = alice.placeCall(bob.userId).getString("call_id")
        val toCarol = dave.placeCall(carol.userId).getString("call_id")
        host.awaitEvent("bob", "ringing") { it.getString("call_id") == toBob }
        host.awaitEvent("carol", "ringing") { it.getString("call_id") == toCarol }
        // Each process has its own SDK statics: an answer on one phone reaches only its own call.
        host.ok("answer", JSONObject().put("phone", "carol").put("call_id", toCarol))
        alice.awaitCallState(toBob, "ringing")
        dave.awaitCallState(toCarol, "accepted")
        host.ok("decline", JSONObject().put("phone", "bob").put("call_id", toBob))
        alice.awaitCallState(toBob, "declined")
        assertFalse(host.events("bob").any { it.optString("call_id") == toCarol })
        assertFalse(host.events("carol").any { it.optString("call_id") == toBob })
    }

    @Test
    fun swipingAwayAnAppInACallKeepsItsProcessAndForceStoppingItEndsTheCallWithIt() {
        val bob = phone("bob", JSONObject().put("behaviour", JSONObject().put("answer_after", 0.1)))
        val alice = caller()
        val callId = alice.placeCall(bob.userId).getString("call_id")
        host.awaitEvent("bob", "call_active") { it.getString("call_id") == callId }
        host.ok("set_app_state", JSONObject().put("phone", "bob").put("state", "swiped_away"))
        assertFalse("the foreground service keeps it", host.eventNames("bob").contains("process_ended"))
        host.ok("set_app_state", JSONObject().put("phone", "bob").put("state", "force_stopped"))
        host.awaitEvent("bob", "ended_by_system") { it.getString("call_id") == callId }
        assertEquals("force_stopped", host.awaitEvent("bob", "process_ended").getString("app_state"))
    }

    @Test
    fun requestsTheHostRefusesAreAnsweredWithAStableCodeAndTheirId() {
        val unknown = host.send("nonsense")
        assertEquals("unknown_command", unknown.getJSONObject("error").getString("code"))
        val noPhone = host.send("answer", JSONObject().put("phone", "nobody").put("call_id", "x"))
        assertEquals("unknown_phone", noPhone.getJSONObject("error").getString("code"))
        val badState = host.send("add_phone", JSONObject().put("phone", "p").put("user_id", "u").put("device_id", "d")
            .put("app_state", "sleeping"))
        assertEquals("bad_request", badState.getJSONObject("error").getString("code"))
        val badCallUi = host.send("add_phone", JSONObject().put("phone", "p").put("user_id", "u").put("device_id", "d")
            .put("call_ui", "callkit"))
        assertEquals("bad_request", badCallUi.getJSONObject("error").getString("code"))
        assertTrue(badCallUi.getJSONObject("error").getString("message").contains("core_telecom"))
        val again = host.send("start", JSONObject())
        assertEquals("already_started", again.getJSONObject("error").getString("code"))
        assertEquals(again.getLong("id") - 1, badCallUi.getLong("id"))
    }

    @Test
    fun aPhonesOwnServerUrlIsTheServerItsAppRegistersWith() {
        // A cluster gives each phone a URL of its own: nothing listens on port 1, so the app cannot register there
        // although the host's own server is up.
        val admin = Admin(cluster!!)
        val userId = "dora-${RingerCluster.randomHex(4)}"
        val refused = host.send("add_phone", JSONObject().put("phone", "dora").put("user_id", userId)
            .put("device_id", "dora-pixel").put("user_token", admin.mintToken(userId, "Dora"))
            .put("server_url", "http://127.0.0.1:1"))
        assertEquals("registration_failed", refused.getJSONObject("error").getString("code"))
        phone("erin", JSONObject().put("server_url", cluster!!.serverUrl))
    }

    @Test
    fun theHostExitsCleanlyAfterShutdown() {
        phone("bob")
        host.ok("shutdown")
        assertEquals(0, host.awaitExit(10_000))
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster(ringTimeoutSeconds = 4)
        private val cluster: RingerCluster? get() = shared.current
    }
}
