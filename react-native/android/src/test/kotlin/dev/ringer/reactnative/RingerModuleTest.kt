package dev.ringer.reactnative

import android.content.Intent
import com.facebook.react.bridge.JavaOnlyMap
import dev.ringer.android.RingerIntents
import dev.ringer.kit.FakeWebSocketTransport
import dev.ringer.lab.app.MirrorPhone
import kotlinx.coroutines.SupervisorJob
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.lang.reflect.InvocationTargetException
import java.nio.file.Files
import java.util.UUID

/**
 * The `Ringer` module called as JavaScript calls it, on the mirror phone with no network: every argument is checked,
 * every refusal is a typed code, nothing throws out of a method, and events wait for JavaScript.
 */
class RingerModuleTest {
    private val job = SupervisorJob()
    private val files: File = Files.createTempDirectory("ringer-rn-module").toFile()
    private val phone = MirrorPhone(filesDir = files)
    private val sockets = FakeWebSocketTransport()

    @After
    fun tearDown() {
        job.cancel()
        ReactNativeRig.endProcess(null)
        files.deleteRecursively()
    }

    /** JavaScript on an app whose manifest names [server] (none when null). */
    private fun javaScript(server: String? = SERVER, lookedUp: Boolean = true): JavaScript {
        val application = ReactNativeRig.application(phone, server)
        ReactNativeRig.offlineHost(application, job, sockets)
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
            "startCall" to { m, p -> m.startCall("alice", false, p) },
            "answer" to { m, p -> m.answer(callId, p) },
            "decline" to { m, p -> m.decline(callId, p) },
            "hangUp" to { m, p -> m.hangUp(callId, p) },
            "getCalls" to { m, p -> m.getCalls(p) },
            "getReadiness" to { m, p -> m.getReadiness(p) },
            "openReadinessSettings" to { m, p -> m.openReadinessSettings("battery_optimized", p) },
            "getCallHistory" to { m, p -> m.getCallHistory(10.0, p) })
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
                                  "hasVideo" to false, "state" to "ringing")), calls)

        assertEquals("answered by the server's id in any case", null, js.call { m, p -> m.answer(callId.toUpperCase(), p) }.value())
        assertEquals("answering", firstCallState(js))
        assertEquals(BridgeError.WRONG_STATE, js.call { m, p -> m.decline(callId, p) }.code())
        assertEquals(null, js.call { m, p -> m.hangUp(callId, p) }.value())
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCalls(p) }.value())
        assertEquals(null, js.call { m, p -> m.logout(p) }.value())
    }

    /** A running singleTask activity gets the answer intent in onNewIntent: React Native hands it to the module. */
    @Test
    fun anAnswerIntentForTheRunningActivityAnswersThroughTheModule() {
        val (js, callId) = ringingForBob()
        js.context.mirrorNewIntent(Intent("com.example.OTHER"))
        assertEquals("ringing", firstCallState(js))
        js.context.mirrorNewIntent(Intent(RingerIntents.ACTION_ANSWER).putExtra(RingerIntents.EXTRA_CALL_ID, callId))
        assertEquals("answering", firstCallState(js))
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
        assertEquals(BridgeError.NOT_LOGGED_IN, js.call { m, p -> m.startCall("alice", false, p) }.code())
        js.call { m, p -> m.login(ReactNativeRig.token("bob"), p) }.value()
        for (bad in listOf(null, "", "  ")) {
            assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.startCall(bad, true, p) }.code())
        }
        assertEquals(BridgeError.NETWORK, js.call { m, p -> m.startCall("alice", false, p) }.code())
    }

    @Test
    fun theHistoryLimitIsAWholeNumberAndReadinessPagesExistOnlyForSomeProblems() {
        val js = configured()
        for (bad in listOf(-1.0, 1.5, Double.NaN, Double.NEGATIVE_INFINITY)) {
            assertEquals("$bad", BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.getCallHistory(bad, p) }.code())
        }
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCallHistory(0.0, p) }.value())
        assertEquals(listOf<Any>(), js.call { m, p -> m.getCallHistory(1e9, p) }.value())
        assertEquals(false, js.call { m, p -> m.openReadinessSettings("battery_optimized", p) }.value())
        assertEquals(false, js.call { m, p -> m.openReadinessSettings("no_such_problem", p) }.value())
        assertEquals(BridgeError.INVALID_ARGUMENT, js.call { m, p -> m.openReadinessSettings(null, p) }.code())
        assertEquals("Android 15 has the full-screen intent page", true,
                     js.call { m, p -> m.openReadinessSettings("full_screen_intent_denied", p) }.value())
        assertEquals("android.settings.MANAGE_APP_USE_FULL_SCREEN_INTENT", phone.activities.single().action)
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
                                  "hasVideo" to false)), JavaScript.of(callId, initial))
        assertEquals("emitted only once attached", listOf<Any>(), js.emitted)
        js.call { m, p -> m.decline(callId, p) }.value()
        assertEquals(listOf(mapOf("type" to "ended", "callId" to callId, "reason" to "local", "serverReason" to null)),
                     JavaScript.of(callId, js.emitted))
        val history = js.call { m, p -> m.getCallHistory(10.0, p) }.value() as List<*>
        val entry = history.single() as Map<*, *>
        assertEquals(listOf(callId, "incoming", false, "local"), listOf(entry["callId"], entry["direction"], entry["answered"], entry["reason"]))
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
