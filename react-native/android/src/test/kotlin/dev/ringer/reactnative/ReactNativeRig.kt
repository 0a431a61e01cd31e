package dev.ringer.reactnative

import android.app.Activity
import android.app.Application
import android.app.PendingIntent
import android.content.ComponentName
import android.content.Context
import android.content.Intent
import android.os.Bundle
import android.util.Log
import com.facebook.react.bridge.Callback
import com.facebook.react.bridge.CxxCallbackImpl
import com.facebook.react.bridge.JavaOnlyMap
import com.facebook.react.bridge.ReactApplicationContext
import com.facebook.react.bridge.ReadableMap
import com.google.firebase.messaging.RemoteMessage
import dev.ringer.android.RingerAnswerActivity
import dev.ringer.android.RingerComponents
import dev.ringer.android.RingerConnectionService
import dev.ringer.android.RingerMessagingService
import dev.ringer.android.RingerPhone
import dev.ringer.kit.FakeHttpTransport
import dev.ringer.kit.FakeWebSocketTransport
import dev.ringer.kit.RingerJson
import dev.ringer.lab.app.MirrorPhone
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import org.json.JSONArray
import org.json.JSONObject
import java.io.File
import java.io.IOException
import java.nio.file.Files
import java.util.Base64
import java.util.concurrent.CopyOnWriteArrayList

/** The app's launch activity (a ReactActivity in a real app): the call notifications open it. */
class MainActivity : Activity()

/**
 * One JavaScript instance as React Native makes it: its `Ringer` module ([RingerModule]), looked up once (so its
 * emitter callback is set, as the JSI runtime sets it), with every `onEvent` it emits recorded in [emitted].
 * @param lookedUp false for a module JavaScript has not looked up yet: its emitter callback is still null.
 */
class JavaScript(application: Application, lookedUp: Boolean = true) {
    /** The React instance's context over the app. */
    val context: ReactApplicationContext = object : ReactApplicationContext(application) {
        override fun hasActiveReactInstance(): Boolean = true
    }
    val module = RingerModule(context)
    /** Every event emitted to JavaScript, in order, as plain maps. */
    val emitted = CopyOnWriteArrayList<Map<String, Any?>>()

    init {
        if (lookedUp) lookUp()
    }

    /** What JavaScript's first use of the module does: the JSI runtime hands it its event emitter. */
    fun lookUp() {
        module.mirrorSetEventEmitterCallback(CxxCallbackImpl.mirrorRecording(Callback { args ->
            if (args[0] == "onEvent") emitted.add((args[1] as ReadableMap).toHashMap())
        }))
    }

    /** Calls a method as JavaScript does and waits for its promise. */
    fun call(method: (RingerModule, FakePromise) -> Unit): FakePromise {
        val promise = FakePromise()
        method(module, promise)
        promise.await()
        return promise
    }

    /** `configure({server})`; null server: the native default. */
    fun configure(server: String? = null): FakePromise = call { module, promise ->
        val options = JavaOnlyMap()
        if (server == null) options.putNull("server") else options.putString("server", server)
        module.configure(options, promise)
    }

    /** The events of [callId] among [events], as plain maps. */
    companion object {
        fun of(callId: String, events: Any?): List<Map<*, *>> =
            (events as List<*>).map { it as Map<*, *> }.filter { it["callId"] == callId }
    }
}

/**
 * One test's simulated app process on the mirror phone: its coroutines ([job]) and the [phone] over a temporary
 * folder; [end] it after the test.
 * @param name the temporary folder's prefix.
 */
class MirrorProcess(name: String) {
    val job = SupervisorJob()
    private val files: File = Files.createTempDirectory(name).toFile()
    val phone = MirrorPhone(filesDir = files)

    /** Ends the process: its coroutines, the host and the SDK's components, its files, the log lines. */
    fun end() {
        job.cancel()
        ReactNativeRig.endProcess(null)
        files.deleteRecursively()
        Log.mirrorLines.clear()
    }
}

/** Building blocks of the package's tests on the mirror phone. */
object ReactNativeRig {
    /**
     * The app as its merged manifest describes it on [phone]: the launch activity [MainActivity], and the server as
     * meta-data `dev.ringer.server` (none when null).
     * @return the Application over the phone, which the library's provider gets as its context.
     */
    fun application(phone: MirrorPhone, server: String?): Application {
        val packages = phone.packageManager
        packages.mirrorApplicationInfo.packageName = phone.packageName
        packages.mirrorApplicationInfo.icon = 7
        packages.mirrorApplicationInfo.metaData = Bundle().also { meta -> if (server != null) meta.putString(ManifestSettings.SERVER, server) }
        packages.mirrorLaunchIntent = Intent().setComponent(ComponentName(phone.packageName, MainActivity::class.java.name))
        return Application().also { it.mirrorAttach(phone) }
    }

    /**
     * The process's host, as the library's provider creates it, with a phone that has no network: every API request
     * fails at once, unless [http] answers it, and the event stream's socket never opens ([sockets] records its
     * attempts); its coroutines run in [job], which the test cancels, the host's own on [hostScope] when given. A new
     * process: the host of an earlier test is forgotten. [setUp] sees what the host made the phone of (its observer is
     * how the SDK's observations reach the host).
     */
    fun offlineHost(application: Application, job: Job, sockets: FakeWebSocketTransport = FakeWebSocketTransport(),
                    http: FakeHttpTransport = FakeHttpTransport { throw IOException("no network in this test") },
                    hostScope: CoroutineScope? = null,
                    setUp: (RingerReactHost.PhoneSetup) -> Unit = {}): RingerReactHost {
        val scope = CoroutineScope(Dispatchers.Default + job)
        endProcess(null)
        return RingerReactHost.start(application) { context ->
            RingerReactHost(context, makePhone = { setup ->
                setUp(setup)
                RingerPhone(setup.context, setup.server, setup.notifications, http = http, webSockets = sockets, scope = scope,
                            fetchFcmToken = false, streamStatus = setup.streamStatus, readinessChanged = setup.readinessChanged,
                            observer = setup.observer)
            }, scope = hostScope ?: scope)
        }
    }

    /**
     * A server that answers `POST /v1/calls` with a ringing call [callId] from Bob to [callee] (named [calleeName]),
     * ringing for a minute, and nothing else (every other request fails as offline).
     */
    fun callPlacingServer(callId: String, callee: String, calleeName: String): FakeHttpTransport = FakeHttpTransport { request ->
        if (request.method != "POST" || !request.url.endsWith("/v1/calls")) throw IOException("no network in this test")
        val now = System.currentTimeMillis()
        val call = JSONObject().put("call_id", callId).put("state", "ringing")
            .put("caller", JSONObject().put("id", "bob").put("name", "Bob"))
            .put("callee", JSONObject().put("id", callee).put("name", calleeName)).put("has_video", true)
            .put("created_at", RingerJson.formatTimestamp(now)).put("expires_at", RingerJson.formatTimestamp(now + 60_000))
        FakeHttpTransport.json(201, call.toString())
    }

    /**
     * A server that places one group call [callId] to [callees] (the first named [calleeName]) and, asked to ring more
     * into it, answers the legs with the new callees added; nothing else.
     */
    fun groupCallServer(callId: String, callees: List<String>): FakeHttpTransport {
        val rung = ArrayList(callees)
        return FakeHttpTransport { request ->
            if (request.method != "POST") throw IOException("no network in this test")
            if (request.url.endsWith("/ring")) {
                val more = JSONObject(String(request.body ?: ByteArray(0))).getJSONArray("callees")
                synchronized(rung) { for (i in 0 until more.length()) rung.add(more.getString(i)) }
            } else if (!request.url.endsWith("/v1/calls")) {
                throw IOException("no network in this test")
            }
            val now = System.currentTimeMillis()
            val legs = JSONArray()
            for (user in synchronized(rung) { ArrayList(rung) }) {
                legs.put(JSONObject().put("user", JSONObject().put("id", user)).put("state", "ringing")
                    .put("rung_at", RingerJson.formatTimestamp(now)).put("expires_at", RingerJson.formatTimestamp(now + 60_000)))
            }
            val call = JSONObject().put("call_id", callId).put("state", "ringing")
                .put("caller", JSONObject().put("id", "bob").put("name", "Bob"))
                .put("callee", JSONObject().put("id", callees.first())).put("has_video", false)
                .put("created_at", RingerJson.formatTimestamp(now)).put("expires_at", RingerJson.formatTimestamp(now + 60_000))
                .put("legs", legs).put("answer_policy", "first_answer")
            FakeHttpTransport.json(if (request.url.endsWith("/ring")) 200 else 201, call.toString())
        }
    }

    /** A user token for [userId]: a compact JWT whose signature only the server checks. */
    fun token(userId: String): String {
        val encoder = Base64.getUrlEncoder().withoutPadding()
        fun part(json: String) = encoder.encodeToString(json.toByteArray())
        return part("{\"alg\":\"HS256\",\"typ\":\"JWT\"}") + "." + part("{\"sub\":\"$userId\"}") + ".c2lnbmF0dXJl"
    }

    /**
     * A ringing FCM data message for [callId] from Alice reaches the app (RingerMessagingService), and Telecom
     * creates its Connection, so the SDK observes it ringing.
     */
    fun ring(phone: MirrorPhone, callId: String, group: String? = null) {
        val now = System.currentTimeMillis()
        val data = mapOf("ringer" to "{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"$callId\"," +
            "\"caller\":{\"id\":\"alice\",\"name\":\"Alice\"},\"has_video\":false,\"sent_at\":$now,\"expires_at\":${now + 30_000}" +
            (group?.let { ",\"group\":$it" } ?: "") + "}")
        RingerMessagingService().onMessageReceived(RemoteMessage.Builder("sender@fcm.googleapis.com").setData(data).build())
        val service = RingerConnectionService()
        service.mirrorAttach(phone)
        phone.telecomCreatesIncoming(service)
    }

    /**
     * The user taps [pending] (a notification's action): Android creates the front activity of its intents, and when
     * that one finishes in onCreate (RingerAnswerActivity) the one beneath comes to the front: created for its
     * intent, or, when it is [running] (a singleTask activity), handed it in onNewIntent, which [newIntent] plays
     * (ReactActivity gives it to the JavaScript instance there is, if any), then resumed.
     */
    fun tap(application: Application, context: Context, pending: PendingIntent, running: Activity? = null,
            newIntent: (Intent) -> Unit = {}) {
        for (intent in pending.mirrorIntents.reversed()) {
            val name = intent.component?.className
            if (running != null && name == running.javaClass.name) {
                newIntent(intent)
                application.mirrorResumeActivity(running)
                return
            }
            val activity: Activity = when (name) {
                RingerAnswerActivity::class.java.name -> RingerAnswerActivity()
                MainActivity::class.java.name -> MainActivity()
                else -> throw AssertionError("it opens $name")
            }
            activity.mirrorAttach(context)
            application.mirrorStartActivity(activity, intent)
            if (!activity.isFinishing) return
        }
    }

    /** Forgets the process's host and the SDK's components, as a process death does. */
    fun endProcess(phone: RingerPhone?) {
        RingerReactHost.current = null
        if (phone == null || RingerComponents.callUi === phone.callUi) {
            RingerComponents.callUi = null
            RingerComponents.pushHandler = null
            RingerComponents.callBacks = null
        }
    }
}
