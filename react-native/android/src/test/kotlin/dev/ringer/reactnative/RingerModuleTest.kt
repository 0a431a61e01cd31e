package dev.ringer.reactnative

import android.content.ActivityNotFoundException
import android.app.Notification
import android.content.Intent
import com.facebook.react.bridge.JavaOnlyArray
import com.facebook.react.bridge.JavaOnlyMap
import dev.ringer.android.IncomingCallNotification
import dev.ringer.android.RingerIntents
import dev.ringer.kit.FakeHttpTransport
import dev.ringer.kit.FakeWebSocketTransport
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.io.IOException
import java.lang.reflect.InvocationTargetException
import java.util.UUID

/**
 * The `Ringer` module called as JavaScript calls it, on the mirror phone with no network: every argument is checked,
 * every refusal is a typed code, nothing throws out of a method, and events wait for JavaScript.
 */
class RingerModuleTest {
    private val process = MirrorProcess("ringer-rn-module")
    private val job = process.job
    private val phone = process.phone
    private val sockets = FakeWebSocketTransport()

    @After
    fun tearDown() = process.end()

    /** JavaScript on an app whose manifest names [server] (none when null), its phone's requests answered by [http]. */
    private fun javaScript(server: String? = SERVER, lookedUp: Boolean = true,
                           http: FakeHttpTransport = FakeHttpTransport { throw IOException("no network in this test") }): JavaScript {
        val application = ReactNativeRig.application(phone, server)
        ReactNativeRig.offlineHost(application, job, sockets, http)
        return JavaScript(application, lookedUp)
    }

    private fun configured(): JavaScript = javaScript().also { it.configure().value() }

    @Test
    fun beforeConfigureEveryMethodButConfigureAndGetInitialEventsRejectsNotConfigured() {
        val js = javaScript()
        val callId = UUID.randomUUID().toString()
        val calls: List<Pair<String, (RingerModule, FakePromise) -> Unit>> = listOf(
            "login" to { m, p -> m.login(ReactNativeRig.token("bob"), p) },
            "logout" to { m, p -> m.logout(p) },
            "startCall" to { m, p -> m.startCall("alice", false, "", p) },
            "startGroupCall" to { m, p -> m.startGroupCall(JavaOnlyArray.of("alice"), false, "first_answer", "", p) },
            "ringMore" to { m, p -> m.ringMore(callId, JavaOnlyArray.of("alice"), p) },
            "answer" to { m, p -> m.answer(callId, p) },
            "decline" to { m, p -> m.decline(callId, p) },
            "hangUp" to { m, p -> m.hangUp(callId, p) },
            "getCalls" to { m, p -> m.getCalls(p) },
            "getReadiness" to { m, p -> m.getReadiness(p) },
            "openReadinessSettings" to { m, p -> m.openReadinessSettings("battery_optimized", p) },
            "getCallHistory" to { m, p -> m.getCallHistory(10.0, p) },
            "getRecentCalls" to { m, p -> m.getRecentCalls(0.0, null, p) },
            "setHeld" to { m, p -> m.setHeld(callId, true, p) },
            "setMuted" to { m, p -> m.setMuted(callId, true, p) },
            "playDtmf" to { m, p -> m.playDtmf(callId, "1", p) },
            "getAudioRoutes" to { m, p -> m.getAudioRoutes(p) },
            "setAudioRoute" to { m, p -> m.setAudioRoute("speaker", p) })
        for ((name, method) in calls) assertEquals(name, BridgeError.NOT_CONFIGURED, js.call(method).code())
        val initial = js.call { m, p -> m.getInitialEvents(p) }.value() as List<*>
        assertEquals("the pre-flight at launch", listOf("readinessChanged"), initial.map { (it as Map<*, *>)["type"] })
        assertNotNull(js.configure().value())
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCalls(p) }.value())
    }

    @Test
    fun configureWithoutAnyServerIsNotConfiguredAndAServerThatIsNoHttpUrlIsInvalid() {
        val js = javaScript(server = null)
        assertEquals(BridgeError.NOT_CONFIGURED, js.configure().code())
        for (bad in listOf("ftp://ringer.example.com", "ringer.example.com", "https://", "http://exa mple.com", "")) {
            assertEquals(bad, BridgeError.INVALID_ARGUMENT, js.configure(bad).code())
        }
        val number = JavaOnlyMap().also { it.putDouble("server", 42.0) }
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.configure(number, p) }.code())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.configure(null, p) }.code())

        val state = js.configure("https://ringer.example.com").value() as Map<*, *>
        assertEquals("https://ringer.example.com", state["server"])
        assertEquals("kept for the next cold start", "https://ringer.example.com", sessions().loadServer())
    }

    @Test
    fun anotherServerGivenToARunningPhoneIsUsedFromTheNextLaunch() {
        val js = configured()
        val state = js.configure("https://staging.example.com").value() as Map<*, *>
        assertEquals("the phone of this process stays on its server", SERVER, state["server"])
        assertEquals("https://staging.example.com", sessions().loadServer())
        assertEquals("configure without a server keeps the stored one", SERVER, (js.configure().value() as Map<*, *>)["server"])
        assertEquals("https://staging.example.com", sessions().loadServer())
    }

    @Test
    fun configureWithTheManifestsServerForgetsTheStoredOneInsteadOfPinningIt() {
        sessions().saveServer("https://staging.example.com")
        val js = javaScript()
        assertEquals("the stored server wins at launch", "https://staging.example.com", (js.configure().value() as Map<*, *>)["server"])
        val state = js.configure("$SERVER/").value() as Map<*, *>
        assertEquals("the running phone keeps its server", "https://staging.example.com", state["server"])
        assertNull("the default is not stored: the next launch uses the manifest's", sessions().loadServer())
        js.configure("https://staging.example.com").value()
        assertEquals("another server is stored", "https://staging.example.com", sessions().loadServer())
    }

    @Test
    fun aLoginMadeOnAnotherServerIsDeletedAtLaunchAndThePhoneStartsLoggedOut() {
        sessions().save(SessionStore.Session(ReactNativeRig.token("bob"), "bob", "https://old.example.com"))
        val state = javaScript().configure().value() as Map<*, *>
        assertEquals(null, state["userId"])
        assertNull(sessions().load())
        assertFalse(RingerReactHost.current!!.phone!!.registrar.status.isLoggedIn)
    }

    /** The iOS half's rule: scheme and host in any case, a default port and a trailing slash name the same server. */
    @Test
    fun aLoginMadeOnAnotherSpellingOfTheSameServerIsKeptAtLaunch() {
        sessions().save(SessionStore.Session(ReactNativeRig.token("bob"), "bob", "HTTP://127.0.0.1:9/"))
        val state = javaScript().configure().value() as Map<*, *>
        assertEquals("bob", state["userId"])
        assertEquals("bob", sessions().load()?.userId)
        assertTrue(RingerReactHost.current!!.phone!!.registrar.status.isLoggedIn)
    }

    @Test
    fun aLoginStoredWithoutItsServerCountsAsMadeOnTheServerInUseAtLaunch() {
        sessions().save(SessionStore.Session(ReactNativeRig.token("bob"), "bob"))
        val state = javaScript().configure().value() as Map<*, *>
        assertEquals("bob", state["userId"])
        assertEquals("recorded now", SERVER, sessions().load()?.server)
        assertTrue(RingerReactHost.current!!.phone!!.registrar.status.isLoggedIn)
    }

    @Test
    fun aPhoneConfigureCreatesOnAnotherServerStartsLoggedOut() {
        sessions().save(SessionStore.Session(ReactNativeRig.token("bob"), "bob", "https://old.example.com"))
        val js = javaScript(server = null)
        assertNull("no server at launch: no phone, the login kept", RingerReactHost.current!!.phone)
        assertEquals("bob", sessions().load()?.userId)
        val state = js.configure("https://new.example.com").value() as Map<*, *>
        assertEquals("https://new.example.com", state["server"])
        assertEquals(null, state["userId"])
        assertNull(sessions().load())
    }

    @Test
    fun configureResolvesWithTheNativeStateOnTheManifestsServer() {
        val state = javaScript().configure().value() as Map<*, *>
        assertEquals(SERVER, state["server"])
        assertEquals("android", state["platform"])
        assertEquals(null, state["userId"])
        assertEquals(listOf<Any>(), state["calls"])
        assertTrue(state.toString(), (state["deviceId"] as String).isNotEmpty())
        assertTrue("the mirror phone's battery optimisation is on", (state["readiness"] as List<*>).contains("battery_optimized"))
        assertEquals(setOf("server", "deviceId", "platform", "userId", "calls", "readiness"), state.keys)
    }

    @Test
    fun loginReadsTheTokensSubjectAndRefusesAnotherUserUntilLogout() {
        val js = configured()
        for (bad in listOf(null, "", "not-a-jwt", "a.b.c")) {
            assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.login(bad, p) }.code())
        }
        assertEquals(mapOf("userId" to "bob"), js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value())
        assertEquals("the same user refreshes the token", mapOf("userId" to "bob"),
                     js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value())
        assertEquals(BridgeError.OTHER_USER_LOGGED_IN, js.call { m, p -> m.login(ReactNativeRig.token("carol"), p) }.code())
        assertEquals("bob", sessions().load()?.userId)
        assertEquals("a login records the server it was made on", SERVER, sessions().load()?.server)
        assertTrue(RingerReactHost.current!!.phone!!.registrar.status.isLoggedIn)

        assertEquals(null, js.call { m, p -> m.logout(p) }.value())
        assertEquals(null, sessions().load())
        assertEquals(mapOf("userId" to "carol"), js.call { m, p -> m.login(ReactNativeRig.token("carol"), p) }.value())
    }

    @Test
    fun aCallIdThatIsNoUuidIsInvalidAndAnUnknownOneUnknown() {
        val js = configured()
        for (method in listOf<(RingerModule, String?, FakePromise) -> Unit>(
                { m, id, p -> m.answer(id, p) }, { m, id, p -> m.decline(id, p) }, { m, id, p -> m.hangUp(id, p) })) {
            for (bad in listOf(null, "", "not-a-uuid", "6f1d1c3e-3c55-4b1f-9d0a-1f6a3b1f7a0", "../../v1/calls")) {
                assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> method(m, bad, p) }.code())
            }
            val unknown = UUID.randomUUID().toString().toUpperCase()
            assertEquals(BridgeError.UNKNOWN_CALL, js.call { m, p -> method(m, unknown, p) }.code())
        }
    }

    @Test
    fun logoutDuringACallIsRefusedAndOnlyARingingCallCanBeDeclined() {
        val (js, callId) = ringingForBob()
        assertEquals(BridgeError.CALL_IN_PROGRESS, js.call { m, p -> m.logout(p) }.code())
        val calls = js.call { m, p -> m.getCalls(p) }.value() as List<*>
        assertEquals(listOf(mapOf("callId" to callId, "direction" to "incoming", "peer" to mapOf("id" to "alice", "name" to "Alice"),
                                  "hasVideo" to false, "state" to "ringing", "media" to null, "participants" to null)), calls)

        assertEquals("answered by the server's id in any case", null, js.call { m, p -> m.answer(callId.toUpperCase(), p) }.value())
        assertEquals("answering", firstCallState(js))
        assertEquals(BridgeError.WRONG_STATE, js.call { m, p -> m.decline(callId, p) }.code())
        assertEquals(null, js.call { m, p -> m.hangUp(callId, p) }.value())
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCalls(p) }.value())
        assertEquals(null, js.call { m, p -> m.logout(p) }.value())
    }

    @Test
    fun holdMuteAndKeypadAreCheckedAndARingingCallIsNeitherHeldNorPlaysTones() {
        val (js, callId) = ringingForBob()
        assertEquals(false, js.call { m, p -> m.setHeld(callId, true, p) }.value())
        assertEquals(false, js.call { m, p -> m.playDtmf(callId, "1", p) }.value())
        assertEquals(true, js.call { m, p -> m.setMuted(callId.toUpperCase(), true, p) }.value())
        for (bad in listOf(null, "", "12a", "1,2", "1".repeat(65))) {
            assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.playDtmf(callId, bad, p) }.code())
        }
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.setHeld("not-a-call", true, p) }.code())
        assertEquals(BridgeError.UNKNOWN_CALL, js.call { m, p -> m.setMuted(UUID.randomUUID().toString(), true, p) }.code())
        // No call's audio runs: Telecom has said no route yet, and an output it does not list is not chosen.
        assertEquals(mapOf("current" to null, "outputs" to listOf<Any>()), js.call { m, p -> m.getAudioRoutes(p) }.value())
        assertEquals(false, js.call { m, p -> m.setAudioRoute("speaker", p) }.value())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.setAudioRoute("", p) }.code())
    }

    @Test
    fun answerOfACallAlreadyAnsweringResolvesWithNothingToDo() {
        val (js, callId) = ringingForBob()
        assertEquals(null, js.call { m, p -> m.answer(callId, p) }.value())
        assertEquals(null, js.call { m, p -> m.answer(callId, p) }.value())
        assertEquals("answering", firstCallState(js))
    }

    @Test
    fun answerAndDeclineOfAnOutgoingCallAreWrongState() {
        val callId = UUID.randomUUID().toString()
        val js = loggedIn(ReactNativeRig.callPlacingServer(callId, "carol", "Carol"))
        assertEquals("ringing", (js.call { m, p -> m.startCall("carol", true, "", p) }.value() as Map<*, *>)["state"])
        assertEquals(BridgeError.WRONG_STATE, js.call { m, p -> m.answer(callId, p) }.code())
        assertEquals(BridgeError.WRONG_STATE, js.call { m, p -> m.decline(callId, p) }.code())
        assertEquals(null, js.call { m, p -> m.hangUp(callId, p) }.value())
    }

    /** Group calls from JavaScript: checked natively, answered with the participants, grown by a ring-more. */
    @Test
    fun startGroupCallAnswersTheParticipantsAndRingMoreAddsToThem() {
        val callId = UUID.randomUUID().toString()
        val js = loggedIn(ReactNativeRig.groupCallServer(callId, listOf("carol", "dave")))
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.startGroupCall(JavaOnlyArray.of(), false, "first_answer", "", p) }.code())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.startGroupCall(JavaOnlyArray.of("carol"), false, "ring_in_turn", "", p) }.code())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.startGroupCall(JavaOnlyArray.of("carol", " "), false, "first_answer", "", p) }.code())
        val placed = js.call { m, p -> m.startGroupCall(JavaOnlyArray.of("carol", "dave"), false, "first_answer", "", p) }.value() as Map<*, *>
        assertEquals("ringing", placed["state"])
        assertEquals(listOf("carol", "dave"), (placed["participants"] as List<*>).map { ((it as Map<*, *>)["user"] as Map<*, *>)["id"] })
        val listed = (js.call { m, p -> m.getCalls(p) }.value() as List<*>).single() as Map<*, *>
        assertEquals(placed["participants"], listed["participants"])
        val grown = js.call { m, p -> m.ringMore(callId, JavaOnlyArray.of("erin"), p) }.value() as List<*>
        assertEquals(listOf("carol", "dave", "erin"), grown.map { ((it as Map<*, *>)["user"] as Map<*, *>)["id"] })
        assertEquals(BridgeError.UNKNOWN_CALL, js.call { m, p -> m.ringMore(UUID.randomUUID().toString(), JavaOnlyArray.of("erin"), p) }.code())
    }

    @Test
    fun startCallRejectsNativeWhenTheServersAnswerCannotBeRead() {
        val unreadable = FakeHttpTransport { request ->
            if (request.url.endsWith("/v1/calls")) FakeHttpTransport.json(201, "{\"call_id\":42}") else throw IOException("offline")
        }
        val js = loggedIn(unreadable)
        val refusal = js.call { m, p -> m.startCall("carol", false, "", p) }.await() as FakePromise.Outcome.Rejected
        assertEquals(refusal.toString(), BridgeError.NATIVE, refusal.code)
    }

    @Test
    fun anOutgoingCallStartCallHasNotReturnedIsListedWithTheCalleeIdAndNoName() {
        val (js, callId) = placedWhileTelecomWaits { js, callId ->
            assertEquals(listOf(mapOf("callId" to callId, "direction" to "outgoing", "peer" to mapOf("id" to "carol", "name" to null),
                                      "hasVideo" to true, "state" to "ringing", "media" to null, "participants" to null)),
                         js.call { m, p -> m.getCalls(p) }.value())
        }
        assertEquals("startCall's answer names the callee", mapOf("id" to "carol", "name" to "Carol"),
                     ((js.call { m, p -> m.getCalls(p) }.value() as List<*>).single() as Map<*, *>)["peer"])
        assertEquals(1, outgoingKept(1))
        js.call { m, p -> m.hangUp(callId, p) }.value()
        assertEquals("forgotten when the call ends", 0, outgoingKept(0))
    }

    @Test
    fun anOutgoingCallThatEndedBeforeStartCallReturnedIsNotKept() {
        val (js, _) = placedWhileTelecomWaits { _, callId -> RingerReactHost.current!!.phone!!.coordinator.end(callId) {} }
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCalls(p) }.value())
        assertEquals("startCall settled after its placed call was looked at", 0, outgoingKept(0))
    }

    /**
     * Bob calls Carol (video), and Telecom's placeCall waits while [meanwhile] runs: the coordinator holds the call,
     * startCall has not returned.
     * @return JavaScript and the call id, once startCall resolved with the ringing call.
     */
    private fun placedWhileTelecomWaits(meanwhile: (JavaScript, String) -> Unit): Pair<JavaScript, String> {
        val callId = UUID.randomUUID().toString()
        val js = loggedIn(ReactNativeRig.callPlacingServer(callId, "carol", "Carol"))
        val placing = FakePromise()
        synchronized(phone.telecom) {
            js.module.startCall("carol", true, "", placing)
            awaitCall(callId)
            meanwhile(js, callId)
        }
        assertEquals("ringing", (placing.value() as Map<*, *>)["state"])
        return Pair(js, callId)
    }

    /** JavaScript configured and Bob logged in, the phone's requests answered by [http]. */
    private fun loggedIn(http: FakeHttpTransport): JavaScript {
        val js = javaScript(http = http)
        js.configure().value()
        js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        return js
    }

    /** Waits until the coordinator holds [callId]. */
    private fun awaitCall(callId: String) {
        val deadline = System.currentTimeMillis() + 5_000
        val coordinator = RingerReactHost.current!!.phone!!.coordinator
        while (coordinator.currentCalls().none { it.callId == callId }) {
            if (System.currentTimeMillis() > deadline) throw AssertionError("the coordinator never held $callId")
            Thread.sleep(10)
        }
    }

    /**
     * How many outgoing calls the host keeps the callee of, once that settles within 5 s at [expected] (its private
     * map, read by reflection: nothing else shows an entry that is never removed).
     */
    private fun outgoingKept(expected: Int): Int {
        val field = RingerReactHost::class.java.getDeclaredField("outgoing")
        field.isAccessible = true
        val deadline = System.currentTimeMillis() + 5_000
        while (true) {
            val size = (field.get(RingerReactHost.current!!) as Map<*, *>).size
            if (size == expected || System.currentTimeMillis() > deadline) return size
            Thread.sleep(10)
        }
    }

    /**
     * The app's singleTask activity is running and JavaScript reloads: ReactActivity hands a new intent only to the
     * JavaScript instance there is, and there is none, so nothing may depend on onNewIntent: the notification's
     * answer is taken natively, in front of the activity, and the JavaScript that comes next sees the call answering.
     */
    @Test
    fun anAnswerTappedWhileJavaScriptReloadsIsTakenNativelyAndTheCallStopsRinging() {
        val (js, callId) = ringingForBob()
        val application = js.context.applicationContext as android.app.Application
        val running = MainActivity().also { it.mirrorAttach(phone) }
        application.mirrorStartActivity(running, phone.packageManager.mirrorLaunchIntent ?: throw AssertionError("no launch intent"))
        phone.telecom.mirrorConnections.last().onShowIncomingCallUi()
        val notification = phone.notificationManager.mirrorShowing["$callId/${IncomingCallNotification.NOTIFICATION_ID}"]
            ?: throw AssertionError("no ringing notification")
        js.module.invalidate()
        val delivered = ArrayList<Intent>()
        ReactNativeRig.tap(application, phone, (notification.mirrorStyle as Notification.CallStyle).mirrorAnswerIntent,
                           running = running) { intent -> delivered.add(intent); js.context.mirrorNewIntent(intent) }
        assertEquals("the running activity was only asked to show the call",
                     listOf(RingerIntents.ACTION_SHOW_INCOMING_CALL), delivered.map { it.action })
        val next = JavaScript(application)
        next.configure().value()
        assertEquals("answering", firstCallState(next))
        assertFalse("the ringing notification is gone",
                    phone.notificationManager.mirrorShowing.containsKey("$callId/${IncomingCallNotification.NOTIFICATION_ID}"))
    }

    /** JavaScript configured, Bob logged in, and a call from Alice ringing. @return JavaScript and the call id. */
    private fun ringingForBob(): Pair<JavaScript, String> {
        val js = configured()
        js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        val callId = UUID.randomUUID().toString()
        ReactNativeRig.ring(phone, callId)
        return Pair(js, callId)
    }

    private fun firstCallState(js: JavaScript): Any? =
        ((js.call { m, p -> m.getCalls(p) }.value() as List<*>)[0] as Map<*, *>)["state"]

    @Test
    fun startCallNeedsALoginAndACalleeAndSaysWhenTheNetworkIsDown() {
        val js = configured()
        assertEquals(BridgeError.NOT_LOGGED_IN, js.call { m, p -> m.startCall("alice", false, "", p) }.code())
        assertEquals(BridgeError.NOT_LOGGED_IN, js.call { m, p -> m.getRecentCalls(0.0, null, p) }.code())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.startCall("alice", false, "maybe", p) }.code())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.getRecentCalls(101.0, null, p) }.code())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.getRecentCalls(10.0, "not-a-call", p) }.code())
        js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        for (bad in listOf(null, "", "  ")) {
            assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.startCall(bad, true, "", p) }.code())
        }
        assertEquals(BridgeError.NETWORK, js.call { m, p -> m.startCall("alice", false, "", p) }.code())
    }

    @Test
    fun theHistoryLimitIsAWholeNumberAndReadinessPagesExistOnlyForSomeProblems() {
        val js = configured()
        for (bad in listOf(-1.0, 1.5, Double.NaN, Double.NEGATIVE_INFINITY)) {
            assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.getCallHistory(bad, p) }.code())
        }
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCallHistory(0.0, p) }.value())
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCallHistory(1e9, p) }.value())
        assertEquals(false, js.call { m, p -> m.openReadinessSettings("no_such_problem", p) }.value())
        assertEquals(false, js.call { m, p -> m.openReadinessSettings("no_push_token", p) }.value())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.openReadinessSettings(null, p) }.code())
        assertEquals("Android 15 has the full-screen intent page", true,
                     js.call { m, p -> m.openReadinessSettings("full_screen_intent_denied", p) }.value())
        assertEquals("android.settings.MANAGE_APP_USE_FULL_SCREEN_INTENT", phone.activities.single().action)
    }

    @Test
    fun openReadinessSettingsOpensTheNotificationAndBatteryPagesAndSaysFalseWhenTheDeviceHasNone() {
        val js = configured()
        assertEquals(true, js.call { m, p -> m.openReadinessSettings("notifications_disabled", p) }.value())
        assertEquals("android.settings.APP_NOTIFICATION_SETTINGS", phone.activities.last().action)
        assertEquals(phone.packageName, phone.activities.last().getStringExtra("android.provider.extra.APP_PACKAGE"))
        assertEquals(true, js.call { m, p -> m.openReadinessSettings("battery_optimized", p) }.value())
        assertEquals("android.settings.IGNORE_BATTERY_OPTIMIZATION_SETTINGS", phone.activities.last().action)
        phone.refuseActivity = ActivityNotFoundException("no such page")
        assertEquals(false, js.call { m, p -> m.openReadinessSettings("battery_optimized", p) }.value())
        assertEquals(2, phone.activities.size)
    }

    /** Codegen's emitOnEvent has no null check: the module must not emit before JavaScript looked it up. */
    @Test
    fun eventsBeforeJavaScriptLooksTheModuleUpAreKeptAndTheNextOnesEmittedLive() {
        val js = javaScript(lookedUp = false)
        try {
            val emit = NativeRingerSpec::class.java.getDeclaredMethod("emitOnEvent", com.facebook.react.bridge.ReadableMap::class.java)
            emit.isAccessible = true
            emit.invoke(js.module, JavaOnlyMap())
            throw AssertionError("codegen's emitter was expected to throw before the lookup")
        } catch (e: InvocationTargetException) {
            assertTrue("${e.cause}", e.cause is NullPointerException)
        }
        js.configure().value()
        js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        val callId = UUID.randomUUID().toString()
        ReactNativeRig.ring(phone, callId)     // rings with the emitter still null: nothing is emitted, nothing throws
        js.lookUp()
        val initial = js.call { m, p -> m.getInitialEvents(p) }.value()
        assertEquals(listOf(mapOf("type" to "incoming", "callId" to callId, "caller" to mapOf("id" to "alice", "name" to "Alice"),
                                  "hasVideo" to false, "group" to null, "waiting" to false)), JavaScript.of(callId, initial))
        assertEquals("emitted only once attached", listOf<Any>(), js.emitted)
        js.call { m, p -> m.decline(callId, p) }.value()
        assertEquals(listOf(mapOf("type" to "ended", "callId" to callId, "reason" to "local", "serverReason" to null)),
                     JavaScript.of(callId, js.emitted))
        val history = js.call { m, p -> m.getCallHistory(10.0, p) }.value() as List<*>
        val entry = history.single() as Map<*, *>
        assertEquals(listOf(callId, "incoming", false, "local"), listOf(entry["callId"], entry["direction"], entry["answered"], entry["reason"]))
    }

    @Test
    fun anIncomingGroupCallTellsJavaScriptThePushsGroup() {
        val js = configured()
        js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        js.call { m, p -> m.getInitialEvents(p) }.value()
        val callId = UUID.randomUUID().toString()
        ReactNativeRig.ring(phone, callId, group = "{\"count\":3,\"others\":[{\"id\":\"carol\",\"name\":\"Carol\"},{\"id\":\"dave\"}]}")
        val group = mapOf("count" to 3, "others" to listOf(mapOf("id" to "carol", "name" to "Carol"), mapOf("id" to "dave", "name" to null)))
        assertEquals(listOf(mapOf("type" to "incoming", "callId" to callId, "caller" to mapOf("id" to "alice", "name" to "Alice"),
                                  "hasVideo" to false, "group" to group, "waiting" to false)), JavaScript.of(callId, js.emitted))
    }

    @Test
    fun aReloadedJavaScriptGetsWhatHappenedWhileNoInstanceWasAttached() {
        val first = configured()
        first.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        first.call { m, p -> m.getInitialEvents(p) }.value()
        first.module.invalidate()
        val callId = UUID.randomUUID().toString()
        ReactNativeRig.ring(phone, callId)
        assertEquals("the invalidated instance hears nothing", listOf<Any>(), JavaScript.of(callId, first.emitted))
        val second = JavaScript(ReactNativeRig.application(phone, SERVER))
        assertEquals(listOf("incoming"), JavaScript.of(callId, second.call { m, p -> m.getInitialEvents(p) }.value()).map { it["type"] })
        assertEquals(listOf<Any>(), second.call { m, p -> m.getInitialEvents(p) }.value())
    }

    private fun sessions() = SessionStore(File(phone.noBackupFilesDir, "ringer"))

    companion object {
        const val SERVER = "http://127.0.0.1:9"
    }
}
