package dev.ringer.e2e

import dev.ringer.lab.FcmSandboxEndpoint
import org.json.JSONObject
import java.io.File
import java.net.HttpURLConnection
import java.net.URL
import java.nio.file.Files
import java.security.SecureRandom
import java.util.concurrent.TimeUnit

/**
 * The `ringer` executable the end-to-end tests run: the system property `ringer.bin` (android/Makefile passes
 * `../.build/debug/ringer`), else `/work/main/.build/debug/ringer`. The laboratory's `ringer-lab` (the sandbox,
 * throw-away keys) is the binary of that name beside it; one build makes both.
 */
object RingerBinary {
    /** The default when `ringer.bin` is not set: the main checkout's debug build. */
    const val DEFAULT_PATH = "/work/main/.build/debug/ringer"

    /**
     * The binary, checked to exist and be executable.
     * @throws AssertionError naming the path when it is missing, so every end-to-end test fails instead of
     *   passing without having run anything.
     */
    fun require(): File {
        val path = System.getProperty("ringer.bin") ?: DEFAULT_PATH
        val file = File(path)
        if (!file.isFile || !file.canExecute()) {
            throw AssertionError("the ringer binary is missing at $path: build it with `swift build --product ringer` " +
                "(or pass -Dringer.bin=PATH); the end-to-end tests cannot run without it")
        }
        return file
    }

    /**
     * The `ringer-lab` binary beside [require]'s, checked to exist and be executable.
     * @throws AssertionError naming the path when it is missing.
     */
    fun requireLab(): File {
        val file = File(require().parentFile, "ringer-lab")
        if (!file.isFile || !file.canExecute()) {
            throw AssertionError("the ringer-lab binary is missing at ${file.path}: build it with " +
                "`swift build --product ringer-lab`; the end-to-end tests cannot run without it")
        }
        return file
    }
}

/**
 * One child process of a test (`ringer-lab sandbox`, `ringer serve`), its standard output and error in files of
 * the cluster's folder so that a failing test can print them.
 *
 * Only this process is ever signalled: [stop] sends SIGTERM to its own pid (Process.destroy), then SIGKILL
 * after 5 s.
 */
class RingerProcess(val name: String, val process: Process, val stdout: File, val stderr: File) {
    /** Whether it still runs. */
    val isAlive: Boolean get() = process.isAlive

    /** Everything it wrote so far, standard output then standard error. */
    fun output(): String = readOrEmpty(stdout) + readOrEmpty(stderr)

    /** Stops it (SIGTERM, SIGKILL after 5 s) and waits for it to exit. Safe to call twice. */
    fun stop() {
        if (!process.isAlive) return
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            process.waitFor(5, TimeUnit.SECONDS)
        }
    }

    /**
     * Waits until [pattern] matches its output and returns the match's groups.
     * @throws AssertionError with its output when it exits first or nothing matches within [timeoutMs].
     */
    fun awaitOutput(pattern: Regex, timeoutMs: Long, what: String): MatchResult {
        val deadline = System.currentTimeMillis() + timeoutMs
        while (true) {
            val match = pattern.find(output())
            if (match != null) return match
            if (!process.isAlive) {
                throw AssertionError("$name exited with status ${process.exitValue()} before $what:\n${output()}")
            }
            if (System.currentTimeMillis() > deadline) {
                throw AssertionError("$name did not $what within $timeoutMs ms:\n${output()}")
            }
            Thread.sleep(20)
        }
    }

    private fun readOrEmpty(file: File): String = if (file.exists()) file.readText() else ""
}

/**
 * A `ringer-lab sandbox` (APNs + FCM, trusting a throw-away service account) and a `ringer serve` sending FCM to
 * it, on ephemeral loopback ports, in a fresh temporary folder (keys from `ringer-lab keys --out`, the database,
 * every log). Usage: `RingerCluster.start(ringTimeoutSeconds = 4)`, then [close] in teardown, which kills both
 * processes even when the test failed.
 *
 * The FCM wiring is the one `ringer-lab demo --android` builds in process (docs/fcm.md): the service account is
 * given to both; the server's copy has its `token_uri` on the sandbox's HTTP/2 port (learnt from the sandbox's
 * start line), `--fcm-host` is that port and `--fcm-ca-file` the sandbox's CA.
 */
class RingerCluster private constructor(
    /** The temporary folder holding keys, the database and the logs. */
    val directory: File,
    private val binary: File,
    private val lab: File,
    private val ringTimeoutSeconds: Int?,
    private val extraServeFlags: List<String>
) : java.io.Closeable {
    /** The admin key (`--admin-key`, passed in the environment, never as a flag `ps` shows). */
    val adminKey: String = randomHex(16)
    private val userTokenSecret: String = randomHex(32)

    /** The FCM project of the throw-away service account (`ringer-lab keys`' default). */
    val fcmProjectId = "ringer-dev"

    /** The dev CA that signed the sandbox's certificate (PEM), for the phones' `wss://` socket. */
    val caFile: File get() = File(directory, "keys/ca.pem")

    /** `ringer-lab sandbox`; null before start. */
    var sandbox: RingerProcess? = null
        private set

    /** `ringer serve`; null while stopped. */
    var server: RingerProcess? = null
        private set

    /** Every process this cluster started, stopped ones too, for [logs]. */
    private val started = mutableListOf<RingerProcess>()

    /** The FCM sandbox as the phones' Play services reach it. */
    val fcmSandbox: FcmSandboxEndpoint get() = FcmSandboxEndpoint(fcmSandboxUrl, caFile, fcmProjectId)

    /** The sandbox's APNs port. */
    var apnsPort = 0
        private set

    /** The FCM sandbox's HTTP/2 port (messages:send and the server's token grants). */
    var fcmHttp2Port = 0
        private set

    /** The FCM sandbox's HTTP/1.1 port: control routes and the phones' WebSocket. */
    var fcmHttp1Port = 0
        private set

    /** The server's port; kept across [restartServer] so that clients keep their base URL. */
    var serverPort = 0
        private set

    /** `http://127.0.0.1:<server port>`. */
    val serverUrl: String get() = "http://127.0.0.1:$serverPort"

    /** `https://127.0.0.1:<FCM HTTP/1.1 port>`, where the phones' socket and the control routes are. */
    val fcmSandboxUrl: String get() = "https://127.0.0.1:$fcmHttp1Port"

    private val shutdownHook = Thread { killAll() }

    private fun startAll() {
        Runtime.getRuntime().addShutdownHook(shutdownHook)
        val keys = File(directory, "keys")
        val keysRun = ProcessBuilder(lab.path, "keys", "--out", keys.path)
            .redirectErrorStream(true).redirectOutput(File(directory, "keys.out")).start()
        if (!keysRun.waitFor(30, TimeUnit.SECONDS) || keysRun.exitValue() != 0) {
            keysRun.destroyForcibly()
            throw AssertionError("`ringer-lab keys` failed:\n${File(directory, "keys.out").readText()}")
        }
        val account = File(keys, "fcm-service-account.json")
        val sandboxProcess = spawn("sandbox", listOf(lab.path, "sandbox", "--listen", "127.0.0.1:0",
            "--cert", File(keys, "server.pem").path, "--key", File(keys, "server.key").path,
            "--key-id", APNS_KEY_ID, "--team-id", APNS_TEAM_ID, "--key-file", File(keys, "AuthKey_RINGERDEV.pub.pem").path,
            "--fcm-service-account", account.path), emptyMap())
        sandbox = sandboxProcess
        val fcmLine = sandboxProcess.awaitOutput(
            Regex("""FCM sandbox listening on https://127\.0\.0\.1:(\d+) \(HTTP/2\) and https://127\.0\.0\.1:(\d+) \(HTTP/1\.1"""),
            15_000, "print its FCM ports")
        fcmHttp2Port = fcmLine.groupValues[1].toInt()
        fcmHttp1Port = fcmLine.groupValues[2].toInt()
        apnsPort = sandboxProcess.awaitOutput(Regex("""APNs sandbox listening on https://127\.0\.0\.1:(\d+)"""),
            15_000, "print its APNs port").groupValues[1].toInt()
        // The server grants its access tokens from the sandbox: the same account, its token_uri on the sandbox.
        val serverAccount = JSONObject(account.readText())
        serverAccount.put("token_uri", "https://127.0.0.1:$fcmHttp2Port/token")
        val serverAccountFile = File(directory, "fcm-service-account-server.json")
        serverAccountFile.writeText(serverAccount.toString())
        serverAccountFile.setReadable(false, false)
        serverAccountFile.setReadable(true, true)
        startServer(0)
    }

    private fun startServer(port: Int) {
        val keys = File(directory, "keys")
        val arguments = mutableListOf(binary.path, "serve", "--listen", "127.0.0.1:$port",
            "--database", File(directory, "ringer.sqlite").path,
            "--apns-key-file", File(keys, "AuthKey_RINGERDEV.p8").path, "--apns-key-id", APNS_KEY_ID,
            "--apns-team-id", APNS_TEAM_ID, "--apns-host", "127.0.0.1:$apnsPort", "--apns-ca-file", caFile.path,
            "--fcm-service-account", File(directory, "fcm-service-account-server.json").path,
            "--fcm-host", "127.0.0.1:$fcmHttp2Port", "--fcm-ca-file", caFile.path,
            "--media-url", "wss://media.invalid", "--media-api-key", "e2e-media", "--media-api-secret", randomHex(16))
        if (ringTimeoutSeconds != null) arguments += listOf("--ring-timeout", ringTimeoutSeconds.toString())
        // Tests place many calls from few users within a minute; rate limits are not what they test.
        for (limit in RATE_LIMITS) arguments += listOf("--$limit", "0")
        arguments += extraServeFlags
        val generation = started.count { it.name.startsWith("serve") }
        val process = spawn(if (generation == 0) "serve" else "serve-$generation", arguments,
            mapOf("RINGER_ADMIN_KEY" to adminKey, "RINGER_USER_TOKEN_SECRET" to userTokenSecret))
        server = process
        val listening = process.awaitOutput(Regex("""listening http\.address=127\.0\.0\.1:(\d+)"""), 20_000, "listen")
        serverPort = listening.groupValues[1].toInt()
        awaitHealthy(process)
    }

    private fun awaitHealthy(process: RingerProcess) {
        val deadline = System.currentTimeMillis() + 10_000
        while (true) {
            try {
                val connection = URL("$serverUrl/healthz").openConnection() as HttpURLConnection
                connection.connectTimeout = 1_000
                connection.readTimeout = 2_000
                val status = connection.responseCode
                connection.disconnect()
                if (status == 200) return
            } catch (e: java.io.IOException) {
                // not up yet
            }
            if (!process.isAlive || System.currentTimeMillis() > deadline) {
                throw AssertionError("ringer serve never answered /healthz 200:\n${process.output()}")
            }
            Thread.sleep(30)
        }
    }

    /** Stops `ringer serve` (SIGTERM), as a crash or deploy would; the sandbox keeps running. */
    fun stopServer() {
        server?.stop()
        server = null
        // Keep-alive connections to the stopped server are dead; the harness's client must not reuse them.
        PlainHttp.client.connectionPool().evictAll()
    }

    /**
     * Starts `ringer serve` again on the same port and database (after [stopServer]), so that phones and
     * callers find it where it was and every call and device is still there.
     */
    fun restartServer() {
        stopServer()
        startServer(serverPort)
    }

    private fun spawn(name: String, command: List<String>, environment: Map<String, String>): RingerProcess {
        val stdout = File(directory, "$name.out")
        val stderr = File(directory, "$name.log")
        val builder = ProcessBuilder(command).redirectOutput(stdout).redirectError(stderr)
        builder.environment().putAll(environment)
        val process = RingerProcess(name, builder.start(), stdout, stderr)
        started += process
        return process
    }

    /** Every process's output so far, each under its name: what a failing test prints. */
    fun logs(): String = started.joinToString("\n") { "----- ringer ${it.name} (${it.stderr.path}) -----\n${it.output()}" }

    private fun killAll() {
        for (process in started.reversed()) process.stop()
    }

    /** Stops every process this cluster started (and only those) and deletes the folder. */
    override fun close() {
        killAll()
        sandbox = null
        server = null
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook)
        } catch (e: IllegalStateException) {
            // the JVM is already shutting down; the hook kills them
        }
        directory.deleteRecursively()
    }

    companion object {
        /** The APNs key id and team id the server signs with and the sandbox trusts. */
        const val APNS_KEY_ID = "RINGERDEV1"
        const val APNS_TEAM_ID = "DEVTEAM001"

        /** Every `ringer serve` rate limit, each switched off for the shared cluster (docs/security.md). */
        private val RATE_LIMITS = listOf("rate-limit-calls-per-minute", "rate-limit-calls-to-one-callee-per-minute",
            "rate-limit-calls-per-callee-per-minute", "rate-limit-device-changes-per-minute",
            "rate-limit-auth-failures-per-minute", "rate-limit-unknown-callees-per-minute", "rate-limit-reads-per-minute",
            "rate-limit-event-stream-connects-per-minute")

        private val random = SecureRandom()

        /** [bytes] random bytes as lowercase hex. */
        fun randomHex(bytes: Int): String {
            val data = ByteArray(bytes)
            random.nextBytes(data)
            return data.joinToString("") { String.format("%02x", it.toInt() and 0xff) }
        }

        /**
         * Starts the sandbox and the server and waits until both answer.
         * @param ringTimeoutSeconds `--ring-timeout`, or null for the server's 45 s.
         * @param extraServeFlags more `ringer serve` flags, e.g. `--call-idle-timeout 10`.
         * @throws AssertionError when the binary is missing or a process does not come up (with its logs).
         */
        fun start(ringTimeoutSeconds: Int? = null, extraServeFlags: List<String> = emptyList()): RingerCluster {
            val binary = RingerBinary.require()
            val directory = Files.createTempDirectory("ringer-e2e-").toFile()
            val cluster = RingerCluster(directory, binary, RingerBinary.requireLab(), ringTimeoutSeconds, extraServeFlags)
            try {
                cluster.startAll()
            } catch (e: Throwable) {
                System.err.println(cluster.logs())
                cluster.close()
                throw e
            }
            return cluster
        }
    }
}
