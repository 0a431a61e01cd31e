package dev.ringer.kit

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.suspendCancellableCoroutine
import org.json.JSONObject
import java.io.IOException
import java.net.URI
import java.util.Base64
import kotlin.coroutines.resume

/**
 * A phone clock the test moves by hand. [sleepUntil] suspends until [advanceTo] passes the deadline; sleepers
 * wake in deadline order, each at its own deadline, so a timer that arms another sees the time it would see
 * on a real phone. With an unconfined scope every woken coroutine runs to its next suspension inside
 * [advanceTo], so a test reads the outcome right after.
 */
class ManualClock(startMs: Long) {
    private class Sleeper(val deadlineMs: Long, val order: Long, val continuation: CancellableContinuation<Unit>)

    private val lock = Any()
    private var nowMs = startMs
    private var counter = 0L
    private val sleepers = ArrayList<Sleeper>()

    /** The phone's time, Unix ms. */
    fun now(): Long = synchronized(lock) { nowMs }

    /** Suspends until the clock reads [deadlineMs]; cancellable. */
    suspend fun sleepUntil(deadlineMs: Long) {
        if (deadlineMs <= now()) return
        suspendCancellableCoroutine<Unit> { continuation ->
            val sleeper = synchronized(lock) {
                counter += 1
                Sleeper(deadlineMs, counter, continuation).also { sleepers.add(it) }
            }
            continuation.invokeOnCancellation { synchronized(lock) { sleepers.remove(sleeper) } }
        }
    }

    /** How many coroutines are sleeping now. */
    val sleeping: Int get() = synchronized(lock) { sleepers.size }

    /** Moves the clock forward by [ms], waking every sleeper due on the way. */
    fun advance(ms: Long) = advanceTo(now() + ms)

    /** Moves the clock to [targetMs], waking every sleeper due on the way, earliest first. */
    fun advanceTo(targetMs: Long) {
        while (true) {
            val next = synchronized(lock) {
                val due = sleepers.filter { it.deadlineMs <= targetMs }.sortedWith(compareBy({ it.deadlineMs }, { it.order })).firstOrNull()
                if (due != null) {
                    sleepers.remove(due)
                    if (due.deadlineMs > nowMs) nowMs = due.deadlineMs
                }
                due
            } ?: break
            next.continuation.resume(Unit)
        }
        synchronized(lock) { if (targetMs > nowMs) nowMs = targetMs }
    }
}

/** A call UI that records what it was asked and refuses an id reported twice, as a `ConnectionService` keyed by call id does. */
class FakeCallUi : CallUi {
    private val lock = Any()
    private val reportList = ArrayList<IncomingCallReport>()
    private val endedList = ArrayList<Pair<String, CallEndReason>>()
    private val connectedList = ArrayList<String>()
    private val answeredList = ArrayList<String>()
    private val answeringList = ArrayList<String>()
    private val known = HashSet<String>()
    private val requestList = ArrayList<String>()

    /** Hold and mute requests, in order: "hold <id>", "resume <id>", "mute <id>", "unmute <id>". */
    val controlRequests: List<String> get() = synchronized(lock) { requestList.toList() }

    val reports: List<IncomingCallReport> get() = synchronized(lock) { reportList.toList() }
    val ended: List<Pair<String, CallEndReason>> get() = synchronized(lock) { endedList.toList() }
    val connected: List<String> get() = synchronized(lock) { connectedList.toList() }
    /** Calls reported answered ([CallUi.reportCallAnswered]), in order. */
    val answered: List<String> get() = synchronized(lock) { answeredList.toList() }
    /** Calls reported answering ([CallUi.reportCallAnswering]), in order. */
    val answering: List<String> get() = synchronized(lock) { answeringList.toList() }

    /** Ids on screen now: reported and not ended. */
    val ringingOrUp: Set<String>
        get() = synchronized(lock) { known - endedList.map { it.first } }

    override fun reportIncomingCall(report: IncomingCallReport, completion: (Throwable?) -> Unit) {
        val isNew = synchronized(lock) {
            reportList.add(report)
            known.add(report.callId)
        }
        completion(if (isNew) null else IllegalStateException("a call with this id is already on screen"))
    }

    override fun reportCallEnded(callId: String, atMs: Long, reason: CallEndReason) {
        synchronized(lock) { endedList.add(callId to reason) }
    }

    override fun reportOutgoingCallConnected(callId: String, atMs: Long) {
        synchronized(lock) { connectedList.add(callId) }
    }

    override fun reportCallAnswered(callId: String, atMs: Long) {
        synchronized(lock) { answeredList.add(callId) }
    }

    override fun reportCallAnswering(callId: String, atMs: Long) {
        synchronized(lock) { answeringList.add(callId) }
    }

    override fun requestHeld(callId: String, held: Boolean) {
        synchronized(lock) { requestList.add("${if (held) "hold" else "resume"} $callId") }
    }

    override fun requestMuted(callId: String, muted: Boolean) {
        synchronized(lock) { requestList.add("${if (muted) "mute" else "unmute"} $callId") }
    }

    override fun requestDtmf(callId: String, digits: String) {
        synchronized(lock) { requestList.add("dtmf $digits $callId") }
    }

    override fun applyAudioOutput(output: AudioOutput?) {
        synchronized(lock) { requestList.add("route ${output?.id ?: "released"}") }
    }
}

/**
 * The call routes of a Ringer server in memory, behind [HttpTransport], answering as the real one does
 * (docs/openapi.yaml, docs/call-lifecycle.md): state-changing actions move the call's state or are refused 409
 * `call-state-conflict` with `call_state`, an unknown call is 404 `call-not-found`. Records every request
 * as `"POST /v1/calls/<id>/accept"`; answers can be scripted to fail, or held until released, and the network
 * taken down for a time ([outage]).
 */
class FakeRingerServer(private val clock: ManualClock) : HttpTransport {
    private val lock = Any()
    private val calls = HashMap<String, Call>()
    private val log = ArrayList<String>()
    private val failures = HashMap<String, ArrayList<Int?>>()
    private val scripted = HashMap<String, Problem>()
    private val holds = HashSet<String>()
    private val held = HashMap<String, CancellableContinuation<Unit>>()
    private val idempotency = HashMap<String, String>()
    private val outages = ArrayList<LongRange>()

    /** Every request so far, `"METHOD /path"`. */
    val requests: List<String> get() = synchronized(lock) { log.toList() }

    /** How many times [request] (`"POST /v1/calls/<id>/decline"`) was made. */
    fun count(request: String): Int = requests.count { it == request }

    /** The call as the server holds it now. */
    fun call(callId: String): Call? = synchronized(lock) { calls[callId] }

    /** Creates a ringing call from alice to [callee] that rings for [ringMs]. */
    fun ring(callId: String, callee: String = "bob", ringMs: Long = 30_000): Call {
        val now = clock.now()
        val call = Call(callId, CallState.RINGING, Party("alice", "Alice"), Party(callee), false, now, now + ringMs)
        synchronized(lock) { calls[callId] = call }
        return call
    }

    /** Sets a call's state as if something happened elsewhere. */
    fun update(callId: String, change: (Call) -> Call): Call = synchronized(lock) {
        val call = change(calls.getValue(callId))
        calls[callId] = call
        call
    }

    /** The next [times] answers to [request] fail: with a problem of [status], or with no answer (null). */
    fun fail(request: String, status: Int?, times: Int = 1) {
        synchronized(lock) { failures.getOrPut(request) { ArrayList() }.addAll(List(times) { status }) }
    }

    /** Every answer to [request] is [problem] from now on. */
    fun refuse(request: String, problem: Problem) {
        synchronized(lock) { scripted[request] = problem }
    }

    /**
     * The phone has no network from [fromMs] until just before [untilMs] (phone clock): every request sent then
     * fails as OkHttp's do without a network (`IOException`) and never reaches the server, so it is not recorded.
     */
    fun outage(fromMs: Long, untilMs: Long) {
        synchronized(lock) { outages.add(fromMs until untilMs) }
    }

    /** Holds the next [request] until [release]. */
    fun hold(request: String) {
        synchronized(lock) { holds.add(request) }
    }

    /** Whether [request] is being held now. */
    fun isHeld(request: String): Boolean = synchronized(lock) { held.containsKey(request) }

    /** Lets a held request go on. */
    fun release(request: String) {
        synchronized(lock) { held.remove(request) }?.resume(Unit)
    }

    override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
        val path = URI(url).path
        val request = "$method $path"
        val sentAt = clock.now()
        if (synchronized(lock) { outages.any { sentAt in it } }) throw IOException("no network")
        val (hold, failure, problem) = synchronized(lock) {
            log.add(request)
            val queue = failures[request]
            val failure: Any? = if (queue != null && queue.isNotEmpty()) Box(queue.removeAt(0)) else null
            Triple(holds.remove(request), failure, scripted[request])
        }
        if (hold) suspendCancellableCoroutine<Unit> { continuation -> synchronized(lock) { held[request] = continuation } }
        if (failure is Box) {
            val status = failure.status ?: throw IOException("no answer")
            return problem(status, "about:blank", "scripted failure")
        }
        if (problem != null) return answer(problem.status, problem.toJson())
        if (headers["Authorization"]?.startsWith("Bearer ") != true) {
            return problem(401, ProblemType.UNAUTHORIZED.rawValue, "no token")
        }
        val parts = path.split("/").filter { it.isNotEmpty() }
        val device = body?.let { JSONObject(String(it, Charsets.UTF_8)).optString("device_id", "") } ?: ""
        if (parts.size == 2 && parts[1] == "calls" && method == "POST") {
            val key = headers["Idempotency-Key"] ?: ""
            val json = JSONObject(String(body ?: ByteArray(0), Charsets.UTF_8))
            val existing = synchronized(lock) { idempotency[key]?.let { calls[it] } }
            if (existing != null) return answer(201, existing.toJson())
            val id = java.util.UUID.randomUUID().toString()
            val now = clock.now()
            val call = Call(id, CallState.RINGING, Party("bob"), Party(json.getString("callee")),
                            json.optBoolean("has_video", false), now, now + 30_000)
            synchronized(lock) {
                calls[id] = call
                idempotency[key] = id
            }
            return answer(201, call.toJson())
        }
        if (parts.size < 3 || parts[1] != "calls") return problem(404, ProblemType.NOT_FOUND.rawValue, "no route")
        val callId = parts[2]
        val call = call(callId) ?: return problem(404, ProblemType.CALL_NOT_FOUND.rawValue, "no such call")
        val action = if (parts.size > 3) parts[3] else ""
        val now = clock.now()
        return when ("$method $action") {
            "GET " -> answer(200, call.toJson())
            "GET media" -> answer(200, MediaSession("wss://media.test", "media-token-$callId").toJson())
            "POST ringing" -> if (call.state == CallState.RINGING) answer(200, call.toJson()) else conflict(call)
            "POST accept" -> if (call.state != CallState.RINGING) conflict(call) else {
                val accepted = update(callId) { it.copy(state = CallState.ACCEPTED, acceptedAtMs = now, acceptedDeviceId = device) }
                answer(200, JSONObject().put("call", accepted.toJson())
                    .put("media", MediaSession("wss://media.test", "media-token-$callId").toJson()))
            }
            "POST decline" -> if (call.state != CallState.RINGING) conflict(call) else
                answer(200, update(callId) { it.copy(state = CallState.DECLINED, endedAtMs = now, endedBy = "bob") }.toJson())
            "POST cancel" -> if (call.state != CallState.RINGING) conflict(call) else
                answer(200, update(callId) { it.copy(state = CallState.CANCELLED, endedAtMs = now) }.toJson())
            "POST end" -> if (call.state != CallState.ACCEPTED) conflict(call) else
                answer(200, update(callId) { it.copy(state = CallState.ENDED, endedAtMs = now) }.toJson())
            "POST keepalive" -> if (call.state != CallState.ACCEPTED) conflict(call) else HttpResponse(204, emptyMap(), ByteArray(0))
            else -> problem(405, ProblemType.METHOD_NOT_ALLOWED.rawValue, "no such action")
        }
    }

    private class Box(val status: Int?)

    private fun conflict(call: Call): HttpResponse =
        answer(409, Problem(ProblemType.CALL_STATE_CONFLICT.rawValue, "Conflict", 409, "too late", call.state).toJson())

    private fun problem(status: Int, type: String, detail: String): HttpResponse =
        answer(status, Problem(type, "HTTP $status", status, detail).toJson())

    private fun answer(status: Int, json: JSONObject): HttpResponse =
        HttpResponse(status, mapOf("Content-Type" to "application/json"), json.toString().toByteArray(Charsets.UTF_8))

    companion object {
        /** A user token whose payload names [user] (the coordinator reads `sub` to know who is logged in). */
        fun userToken(user: String): String {
            val payload = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"sub\":\"$user\"}".toByteArray(Charsets.UTF_8))
            return "e30.$payload.sig"
        }
    }
}

/** Observations collected from any thread. */
class Observations {
    private val lock = Any()
    private val items = ArrayList<CallCoordinator.Observation>()

    val all: List<CallCoordinator.Observation> get() = synchronized(lock) { items.toList() }
    fun add(observation: CallCoordinator.Observation) {
        synchronized(lock) { items.add(observation) }
    }
}
