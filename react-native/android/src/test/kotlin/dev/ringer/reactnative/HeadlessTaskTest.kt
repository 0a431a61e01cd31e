package dev.ringer.reactnative

import android.app.Service
import android.content.Intent
import android.util.Log
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.MediaSession
import org.json.JSONObject
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.util.UUID

/**
 * The Headless JS task after an answer (issue 29: "Android background JS only where an app needs it"): the host
 * starts RingerHeadlessTaskService exactly for an `accepted` event that no JavaScript instance takes, when the app
 * opted in with meta-data; never for other events, never while JavaScript is attached, never without the opt-in; the
 * task gets the call id and direction, never the media token; a start Android refuses is logged and the call goes on.
 */
class HeadlessTaskTest {
    private val process = MirrorProcess("ringer-rn-headless")
    private val job = process.job
    private val phone = process.phone
    @Volatile private var observer: ((CallCoordinator.Observation) -> Unit)? = null
    private var application = ReactNativeRig.application(phone, SERVER)

    @After
    fun tearDown() = process.end()

    /** The host of an app with (or without) the opt-in; Bob logged in natively, no JavaScript yet. */
    private fun host(optedIn: Boolean): RingerReactHost {
        application = ReactNativeRig.application(phone, SERVER)
        if (optedIn) phone.packageManager.mirrorApplicationInfo.metaData.putBoolean(ManifestSettings.HEADLESS_TASK_AFTER_ANSWER, true)
        SessionStore(File(phone.noBackupFilesDir, "ringer")).save(SessionStore.Session(ReactNativeRig.token("bob"), "bob"))
        return ReactNativeRig.offlineHost(application, job) { setup -> observer = setup.observer }
    }

    /** A call from Alice rings ([ReactNativeRig.ring]). @return its id. */
    private fun ring(): String = UUID.randomUUID().toString().also { ReactNativeRig.ring(phone, it) }

    /** The SDK says the media of [callId] can start (the server confirmed the answer, audio is up). */
    private fun mediaCanStart(callId: String) {
        val observe = observer ?: throw AssertionError("the host made no phone")
        observe(CallCoordinator.Observation.MediaCanStart(callId, MediaSession("wss://media.example.com", TOKEN)))
    }

    /** A call rings, then its media can start. @return the call id. */
    private fun ringThenMediaCanStart(): String = ring().also { mediaCanStart(it) }

    private fun accepted(callId: String) =
        JSONObject().put("type", "accepted").put("callId", callId).put("direction", "incoming")
            .put("media", JSONObject().put("url", "wss://media.example.com").put("token", TOKEN))

    @Test
    fun anAnswerNoJavaScriptTookStartsTheTaskWithTheCallIdAndDirectionOnly() {
        host(optedIn = true)
        val callId = ringThenMediaCanStart()
        val intent = phone.servicesStarted.single()
        assertEquals(RingerHeadlessTaskService::class.java.name, intent.component?.className)
        assertEquals(callId, intent.getStringExtra(RingerHeadlessTaskService.EXTRA_CALL_ID))
        assertEquals("incoming", intent.getStringExtra(RingerHeadlessTaskService.EXTRA_DIRECTION))
        assertTrue("the replay still has the accepted event, media and all",
                   RingerReactHost.current!!.attach {}.toString().contains(TOKEN))
    }

    @Test
    fun noTaskWithoutTheOptInOrWhileJavaScriptIsAttached() {
        host(optedIn = false)
        ringThenMediaCanStart()
        assertEquals("not opted in", listOf<Intent>(), phone.servicesStarted)

        ReactNativeRig.endProcess(null)
        val host = host(optedIn = true)
        val js = JavaScript(application)
        js.configure().value()
        js.call { m, p -> m.getInitialEvents(p) }.value()
        val callId = ringThenMediaCanStart()
        assertEquals("JavaScript took it", listOf("incoming", "accepted"), JavaScript.of(callId, js.emitted).map { it["type"] })
        assertEquals(listOf<Intent>(), phone.servicesStarted)

        js.module.invalidate()
        ringThenMediaCanStart()
        assertEquals("detached again: the next answer starts it", 1, phone.servicesStarted.size)
        assertTrue(host.phone != null)
    }

    @Test
    fun ringingAndEndingNeverStartTheTask() {
        val host = host(optedIn = true)
        val callId = ring()
        host.hangUp(callId)
        val replay = host.attach {}
        val types = (0 until replay.length()).map { replay.getJSONObject(it) }
            .filter { it.optString("callId") == callId }.map { it.getString("type") }
        assertEquals(listOf("incoming", "ended"), types)
        assertEquals(listOf<Intent>(), phone.servicesStarted)
    }

    /** Android 8's background limits: the call's foreground service makes the app count as in front. */
    @Test
    fun theCallsForegroundServiceLetsTheTaskStartFromTheBackgroundAndARefusalIsOnlyLogged() {
        val host = host(optedIn = true)
        val callId = ring()
        host.answer(callId)
        phone.runForegroundService()
        phone.appVisible = false
        mediaCanStart(callId)
        assertEquals(callId, phone.servicesStarted.single().getStringExtra(RingerHeadlessTaskService.EXTRA_CALL_ID))

        // No foreground service and nothing visible: Android refuses; the host logs it and goes on.
        val refused = CallAnsweredTask(phone, enabled = true)
        phone.stopService(Intent())
        assertTrue(refused.offered(accepted(callId), attached = false))
        assertEquals(1, phone.servicesStarted.size)
        val line = Log.mirrorLines.single()
        assertTrue(line, line.startsWith("W/Ringer: RingerCallAnswered not started for the incoming call $callId"))
        assertFalse("never the token", line.contains(TOKEN))
        host.hangUp(callId)
    }

    @Test
    fun theStartIsPostedNotMadeOnTheCallersThread() {
        val posted = ArrayList<Runnable>()
        val task = CallAnsweredTask(phone, enabled = true) { posted.add(it) }
        val callId = UUID.randomUUID().toString()
        assertTrue(task.offered(accepted(callId), attached = false))
        assertEquals("nothing started before the main thread runs it", listOf<Intent>(), phone.servicesStarted)
        posted.single().run()
        assertEquals(1, phone.servicesStarted.size)

        for (type in listOf("incoming", "outgoing", "ringing", "ended", "requestFailed", "connectionChanged")) {
            assertFalse(type, task.offered(accepted(callId).put("type", type), attached = false))
        }
        assertFalse(task.offered(accepted(callId), attached = true))
        assertFalse(CallAnsweredTask(phone, enabled = false) { posted.add(it) }.offered(accepted(callId), attached = false))
        assertEquals(1, posted.size)
    }

    @Test
    fun theTaskConfigNamesTheTaskWithItsDataA30SecondTimeoutAndRunsInFront() {
        val callId = UUID.randomUUID().toString()
        val intent = RingerHeadlessTaskService.intent(phone, callId, "outgoing")
        val config = RingerHeadlessTaskService.taskConfig(intent) ?: throw AssertionError("no task")
        assertEquals("RingerCallAnswered", config.taskKey)
        assertEquals(mapOf("callId" to callId, "direction" to "outgoing"), config.data.toHashMap())
        assertEquals(30_000L, config.timeout)
        assertTrue(config.isAllowedInForeground)

        val service = RingerHeadlessTaskService()
        service.mirrorAttach(phone)
        assertEquals(Service.START_REDELIVER_INTENT, service.onStartCommand(intent, 0, 1))
        assertEquals("RingerCallAnswered", service.mirrorStartedTasks.single().taskKey)
        assertNull("a start this library did not make", RingerHeadlessTaskService.taskConfig(Intent()))
        assertEquals(Service.START_NOT_STICKY, service.onStartCommand(Intent(), 0, 2))
        assertNull(RingerHeadlessTaskService.taskConfig(null))
    }

    @Test
    fun theOptInIsTheManifestsMetaData() {
        assertFalse(ManifestSettings.read(application).headlessTaskAfterAnswer)
        phone.packageManager.mirrorApplicationInfo.metaData.putBoolean(ManifestSettings.HEADLESS_TASK_AFTER_ANSWER, true)
        assertTrue(ManifestSettings.read(application).headlessTaskAfterAnswer)
    }

    companion object {
        const val SERVER = "http://127.0.0.1:9"
        /** The media token: a secret that must never reach an Intent or the log. */
        const val TOKEN = "media-token-secret"
    }
}
