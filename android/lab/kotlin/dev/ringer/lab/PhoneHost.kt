package dev.ringer.lab

import org.json.JSONException
import org.json.JSONObject
import java.io.BufferedReader
import java.io.File
import java.io.InputStreamReader
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * The laboratory's Android phone host: one JVM, any number of simulated Android phones, each running the real
 * Kotlin SDK over the Android mirror, driven by newline-delimited JSON requests and answering with responses and
 * unsolicited events (docs/android-phone-host.md has every request, event and error). [handle] takes one request
 * line; [PhoneHostKt.main] reads them from standard input.
 *
 * Requests are handled one at a time, in order, on the caller's thread; events are written from any thread.
 * @param output where responses and events go.
 * @param processes how app processes start.
 */
class PhoneHost(private val output: HostOutput, private val processes: AppProcessLoader) : java.io.Closeable {
    private var world: HostWorld? = null
    private val phones = LinkedHashMap<String, HostedPhone>()
    private val timers = Executors.newSingleThreadScheduledExecutor { Thread(it, "phone-host-timers").apply { isDaemon = true } }

    /** Whether a `shutdown` request was handled: the reader stops. */
    @Volatile var finished = false
        private set

    /**
     * Handles one request line and writes its response. Never throws: a line that is not a JSON object, or a request
     * the host refuses, gets an error response (with a null `id` when none could be read).
     */
    fun handle(line: String) {
        if (line.isBlank()) return
        val request = try {
            JSONObject(line)
        } catch (e: JSONException) {
            output.error(null, "bad_request", "not a JSON object: ${e.message}")
            return
        }
        val id = request.opt("id")
        try {
            val command = RequestFields.string(request, "command")
            output.ok(id, run(command, request))
        } catch (e: HostError) {
            output.error(id, e.code, e.message ?: e.code)
        } catch (e: Exception) {
            System.err.println("phone host: ${request.optString("command")} failed: $e")
            e.printStackTrace()
            output.error(id, "failed", e.toString())
        }
    }

    private fun run(command: String, request: JSONObject): JSONObject = when (command) {
        "start" -> start(request)
        "add_phone" -> addPhone(request)
        "remove_phone" -> {
            val name = RequestFields.string(request, "phone")
            val phone = synchronized(phones) { phones.remove(name) } ?: throw HostError("unknown_phone", "no phone named $name")
            phone.close()
            JSONObject()
        }
        "set_app_state" -> {
            val wire = RequestFields.string(request, "state")
            phone(request).setAppState(AppState.of(wire) ?: throw HostError("bad_request", "unknown state `$wire`"))
            JSONObject()
        }
        "doze" -> { phone(request).setDozing(RequestFields.boolean(request, "dozing")); JSONObject() }
        "network" -> { phone(request).setOnline(RequestFields.boolean(request, "up")); JSONObject() }
        "lock" -> { phone(request).setLocked(RequestFields.boolean(request, "locked")); JSONObject() }
        "set_permission" -> {
            val wire = RequestFields.string(request, "permission")
            val permission = LabPermission.of(wire) ?: throw HostError("bad_request", "unknown permission `$wire`")
            phone(request).setPermission(permission, RequestFields.boolean(request, "granted"))
            JSONObject()
        }
        "log_in" -> { phone(request).logIn(RequestFields.string(request, "user_token")); JSONObject() }
        "log_out" -> { phone(request).logOut(); JSONObject() }
        "answer", "decline", "hang_up" -> {
            phone(request).userAction(command, RequestFields.string(request, "call_id"))
            JSONObject()
        }
        "sim_call" -> { phone(request).simCall(RequestFields.string(request, "answer")); JSONObject() }
        "sim_call_ends" -> { phone(request).simCallEnds(); JSONObject() }
        "hold", "resume" -> {
            phone(request).setHeld(RequestFields.string(request, "call_id"), command == "hold")
            JSONObject()
        }
        "shutdown" -> {
            close()
            finished = true
            JSONObject()
        }
        else -> throw HostError("unknown_command", "unknown command `$command`")
    }

    private fun start(request: JSONObject): JSONObject {
        if (world != null) throw HostError("already_started", "the host was started already")
        val caFile = File(RequestFields.string(request, "fcm_ca_file"))
        if (!caFile.isFile) throw HostError("bad_request", "`fcm_ca_file` is not a file: $caFile")
        val scale = RequestFields.number(request, "time_scale", 1.0)
        if (scale <= 0 || scale > 1) throw HostError("bad_request", "`time_scale` must be above 0 and at most 1")
        val origin = RequestFields.number(request, "time_origin_ms", System.currentTimeMillis().toDouble()).toLong()
        val clock = ScaledClock(scale, origin)
        output.clock = clock
        world = HostWorld(
            serverUrl = RequestFields.string(request, "server_url").trimEnd('/'),
            fcm = FcmSandboxEndpoint(RequestFields.string(request, "fcm_sandbox_url").trimEnd('/'), caFile,
                                     RequestFields.string(request, "fcm_project_id")),
            clock = clock, processes = processes, timers = timers, output = output)
        return JSONObject().put("time_scale", clock.scale).put("time_origin_ms", clock.originMs)
    }

    private fun addPhone(request: JSONObject): JSONObject {
        val world = world ?: throw HostError("not_started", "send `start` first")
        val spec = PhoneSpec.parse(request)
        val phone = synchronized(phones) {
            if (phones.containsKey(spec.name)) throw HostError("phone_exists", "a phone named ${spec.name} exists")
            HostedPhone(spec, world).also { phones[spec.name] = it }
        }
        try {
            phone.install()
        } catch (e: Exception) {
            synchronized(phones) { phones.remove(spec.name) }
            phone.close()
            throw e
        }
        return JSONObject().put("phone", spec.name).put("device_id", spec.deviceId).put("fcm_token", phone.fcmToken)
    }

    private fun phone(request: JSONObject): HostedPhone {
        if (world == null) throw HostError("not_started", "send `start` first")
        val name = RequestFields.string(request, "phone")
        return synchronized(phones) { phones[name] } ?: throw HostError("unknown_phone", "no phone named $name")
    }

    /** Closes every phone (its process, Play services' socket, its storage) and stops the timers. */
    override fun close() {
        val all = synchronized(phones) {
            val all = phones.values.toList()
            phones.clear()
            all
        }
        for (phone in all) phone.close()
        timers.shutdownNow()
        timers.awaitTermination(1, TimeUnit.SECONDS)
    }
}

/**
 * `java -cp "$(cat android/build/lab-classpath.txt)" dev.ringer.lab.PhoneHostKt [--app-classpath PATH]`: reads
 * requests from standard input, one JSON object a line, writes responses and events to standard output and logs to
 * standard error. Exits 0 after `shutdown` or when standard input ends (the runner is gone), closing every phone;
 * 2 on a bad argument.
 */
fun main(args: Array<String>) {
    var appClasspath: List<File>? = null
    var index = 0
    while (index < args.size) {
        when (args[index]) {
            "--app-classpath" -> {
                val value = args.getOrNull(index + 1) ?: run { System.err.println("--app-classpath needs a value"); System.exit(2); return }
                appClasspath = value.split(File.pathSeparator).filter { it.isNotEmpty() }.map { File(it) }
                index += 2
            }
            else -> {
                System.err.println("unknown argument ${args[index]}; usage: PhoneHostKt [--app-classpath PATH]")
                System.exit(2)
            }
        }
    }
    val output = HostOutput(System.out)
    // Nothing but protocol lines may reach standard output: libraries that print go to the log instead.
    System.setOut(System.err)
    val host = PhoneHost(output, AppProcessLoader(appClasspath))
    val input = BufferedReader(InputStreamReader(System.`in`, Charsets.UTF_8))
    while (!host.finished) {
        val line = input.readLine() ?: break
        host.handle(line)
    }
    host.close()
    System.exit(0)
}
