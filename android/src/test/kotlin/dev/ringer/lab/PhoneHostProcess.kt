package dev.ringer.lab

import dev.ringer.e2e.RingerCluster
import org.json.JSONObject
import java.io.BufferedReader
import java.io.File
import java.io.InputStreamReader
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.locks.ReentrantLock
import kotlin.concurrent.withLock

/**
 * The phone host as a child process, driven through its protocol as the scenario runner will drive it:
 * `java -cp "$(cat build/lab-classpath.txt)" dev.ringer.lab.PhoneHostKt` (the system property `ringer.lab.classpath`
 * names the file; android/Makefile passes it). Collects every response and event its standard output writes; its
 * standard error goes to a file, printed by [log]. Only this process is ever signalled (its own pid).
 */
class PhoneHostProcess private constructor(private val process: Process, private val stderr: File) : java.io.Closeable {
    private val lock = ReentrantLock()
    private val changed = lock.newCondition()
    private val responses = HashMap<Long, JSONObject>()
    private val events = ArrayList<JSONObject>()
    private val nextId = AtomicLong(1)
    /** Lines on standard output that were not JSON objects (the tests expect none). */
    val strayLines = ArrayList<String>()

    init {
        Thread({
            val reader = BufferedReader(InputStreamReader(process.inputStream, Charsets.UTF_8))
            while (true) {
                val line = reader.readLine() ?: break
                val json = try {
                    JSONObject(line)
                } catch (e: org.json.JSONException) {
                    lock.withLock { strayLines.add(line) }
                    continue
                }
                lock.withLock {
                    if (json.has("event")) events.add(json) else responses[json.optLong("id", -1)] = json
                    changed.signalAll()
                }
            }
        }, "phone-host-stdout").apply { isDaemon = true }.start()
    }

    /**
     * Sends a request and waits for its response (the host answers each when done, `add_phone` after registration).
     * @return the whole response (`ok`, `result` or `error`).
     * @throws AssertionError when no response comes within [timeoutMs].
     */
    fun send(command: String, fields: JSONObject = JSONObject(), timeoutMs: Long = 20_000): JSONObject {
        val id = nextId.getAndIncrement()
        fields.put("id", id).put("command", command)
        val stdin = process.outputStream
        synchronized(stdin) {
            stdin.write((fields.toString() + "\n").toByteArray(Charsets.UTF_8))
            stdin.flush()
        }
        return awaitIn(timeoutMs, "the response to $command") { responses[id] }
    }

    /** [send], requiring success. @return its `result`. @throws AssertionError naming the error. */
    fun ok(command: String, fields: JSONObject = JSONObject()): JSONObject {
        val response = send(command, fields)
        if (!response.getBoolean("ok")) throw AssertionError("$command failed: $response\n${log()}")
        return response.getJSONObject("result")
    }

    /** Starts the host against [cluster] on its real-time clock. */
    fun start(cluster: RingerCluster): JSONObject = ok("start", JSONObject().put("server_url", cluster.serverUrl)
        .put("fcm_sandbox_url", cluster.fcmSandboxUrl).put("fcm_ca_file", cluster.caFile.path)
        .put("fcm_project_id", cluster.fcmProjectId).put("time_scale", 1))

    /** Waits for an event of [phone] named [name] matching [predicate]. @throws AssertionError listing the events. */
    fun awaitEvent(phone: String, name: String, timeoutMs: Long = 10_000, predicate: (JSONObject) -> Boolean = { true }): JSONObject =
        awaitIn(timeoutMs, "event $name on $phone") { events.firstOrNull { it.optString("phone") == phone && it.getString("event") == name && predicate(it) } }

    /** Every event of [phone] so far, in order. */
    fun events(phone: String): List<JSONObject> = lock.withLock { events.filter { it.optString("phone") == phone } }

    /** The event names of [phone] so far, in order. */
    fun eventNames(phone: String): List<String> = events(phone).map { it.getString("event") }

    private fun <T> awaitIn(timeoutMs: Long, what: String, probe: () -> T?): T {
        val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs)
        lock.lock()
        try {
            while (true) {
                probe()?.let { return it }
                val left = deadline - System.nanoTime()
                if (left <= 0) throw AssertionError("no $what within $timeoutMs ms; events: $events\n${log()}")
                val exited = !process.isAlive
                changed.awaitNanos(minOf(left, TimeUnit.MILLISECONDS.toNanos(100)))
                // Exited before this wait: whatever it wrote was read by now.
                if (exited && probe() == null) throw AssertionError("the host exited before $what; events: $events\n${log()}")
            }
        } finally {
            lock.unlock()
        }
    }

    /** What the host logged so far (standard error). */
    fun log(): String = "----- phone host log -----\n" + (if (stderr.exists()) stderr.readText() else "") + "----- end -----"

    /** Whether the host still runs. */
    val isAlive: Boolean get() = process.isAlive

    /** Waits until the host exits. @return its exit status, or null when it still runs after [timeoutMs]. */
    fun awaitExit(timeoutMs: Long): Int? = if (process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) process.exitValue() else null

    /** Asks it to shut down, then stops it (SIGTERM, SIGKILL after 5 s) if it did not exit. */
    override fun close() {
        if (process.isAlive) {
            try {
                send("shutdown", timeoutMs = 10_000)
            } catch (e: Throwable) {
                // it is stuck or gone: stopped below
            }
        }
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroy()
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly()
        }
        stderr.delete()
    }

    /** Starting it. */
    companion object {
        /**
         * Starts `java -cp <lab class path> dev.ringer.lab.PhoneHostKt`.
         * @throws AssertionError when `ringer.lab.classpath` is unset or its file is missing (build with `make -C android lab`).
         */
        fun launch(): PhoneHostProcess {
            val path = System.getProperty("ringer.lab.classpath")
                ?: throw AssertionError("-Dringer.lab.classpath is not set: run through `make -C android test`")
            val file = File(path)
            if (!file.isFile) throw AssertionError("$path is missing: build it with `make -C android lab`")
            val java = File(System.getProperty("java.home"), "bin/java").path
            val stderr = Files.createTempFile("phone-host-", ".log").toFile()
            val process = ProcessBuilder(java, "-cp", file.readText().trim(), "dev.ringer.lab.PhoneHostKt")
                .redirectError(stderr).start()
            return PhoneHostProcess(process, stderr)
        }
    }
}
