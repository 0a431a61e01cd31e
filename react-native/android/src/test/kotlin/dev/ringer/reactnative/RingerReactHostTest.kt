package dev.ringer.reactnative

import android.content.Intent
import android.util.Log
import dev.ringer.android.RingerIntents
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.MediaSession
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.asCoroutineDispatcher
import org.json.JSONObject
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executor
import java.util.concurrent.LinkedBlockingQueue

/**
 * The host's own duties on the mirror phone with no network: the media a reloaded JavaScript rejoins, and the
 * application's activity callbacks, which run on the main thread for every activity of the app.
 */
class RingerReactHostTest {
    private val process = MirrorProcess("ringer-rn-host")
    private val job = process.job
    private val phone = process.phone
    private val application = ReactNativeRig.application(phone, SERVER)
    @Volatile private var observer: ((CallCoordinator.Observation) -> Unit)? = null

    @After
    fun tearDown() = process.end()

    /** Bob logged in natively, the host started; its own coroutines on [hostScope] when given. */
    private fun host(hostScope: CoroutineScope? = null): RingerReactHost {
        SessionStore(File(phone.noBackupFilesDir, "ringer")).save(SessionStore.Session(ReactNativeRig.token("bob"), "bob"))
        return ReactNativeRig.offlineHost(application, job, hostScope = hostScope) { setup -> observer = setup.observer }
    }

    @Test
    fun getCallsCarriesTheMediaOfTheAcceptedEventUntilTheCallEnds() {
        host()
        val callId = UUID.randomUUID().toString()
        ReactNativeRig.ring(phone, callId)
        val first = JavaScript(application)
        first.configure().value()
        assertEquals("no media before accepted", null, media(first))
        (observer ?: throw AssertionError("no phone"))(
            CallCoordinator.Observation.MediaCanStart(callId, MediaSession("wss://media.example.com", "m-1")))
        first.module.invalidate()

        // A reload: the new instance's state has the call with its media, so it can rejoin.
        val second = JavaScript(application)
        val state = second.configure().value() as Map<*, *>
        val call = (state["calls"] as List<*>).single() as Map<*, *>
        assertEquals(mapOf("url" to "wss://media.example.com", "token" to "m-1"), call["media"])
        assertEquals(call["media"], media(second))

        second.call { m, p -> m.hangUp(callId, p) }.value()
        assertEquals(listOf<Any>(), second.call { m, p -> m.getCalls(p) }.value())
        assertEquals("forgotten when the call ended", 0, mediaKept())
    }

    @Test
    fun aResumedActivityRefreshesTheReadinessOnTheHostsScopeNotTheMainThread() {
        val tasks = LinkedBlockingQueue<Runnable>()
        val host = host(CoroutineScope(Executor { tasks.put(it) }.asCoroutineDispatcher() + job))
        val readiness = CopyOnWriteArrayList<JSONObject>()
        host.attach { event -> if (event.getString("type") == "readinessChanged") readiness.add(event) }
        phone.notificationManager.mirrorNotificationsEnabled = false

        application.mirrorStartActivity(MainActivity().also { it.mirrorAttach(phone) }, Intent("android.intent.action.MAIN"))
        assertEquals("nothing read on the main thread", listOf<JSONObject>(), readiness.toList())

        while (true) (tasks.poll() ?: break).run()
        assertTrue(readiness.toString(), readiness.single().getJSONArray("problems").toString().contains("notifications_disabled"))
    }

    @Test
    fun anActivityIntentWhoseExtrasCannotBeReadIsLoggedNotThrown() {
        host()
        val crafted = object : Intent(RingerIntents.ACTION_ANSWER) {
            override fun getStringExtra(name: String?): String? = throw BadParcelableException("ClassNotFoundException when unmarshalling")
        }
        application.mirrorStartActivity(MainActivity().also { it.mirrorAttach(phone) }, crafted)
        assertTrue(Log.mirrorLines.toString(), Log.mirrorLines.any { it.contains("BadParcelableException") })
    }

    /** As `android.os.BadParcelableException`, which reading a crafted intent's extras throws on API < 33. */
    private class BadParcelableException(message: String) : RuntimeException(message)

    /** The media of the only call getCalls lists. */
    private fun media(js: JavaScript): Any? = ((js.call { m, p -> m.getCalls(p) }.value() as List<*>).single() as Map<*, *>)["media"]

    /** How many calls' media the host keeps (its private map: nothing else shows an entry that is never removed). */
    private fun mediaKept(): Int {
        val field = RingerReactHost::class.java.getDeclaredField("media")
        field.isAccessible = true
        return (field.get(RingerReactHost.current!!) as Map<*, *>).size
    }

    companion object {
        const val SERVER = "http://127.0.0.1:9"
    }
}
