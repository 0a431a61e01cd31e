package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch

/**
 * The server's event stream for one device (`GET /v1/events`), kept open: reconnects with exponential backoff
 * and jitter, and resumes from the last `seq` seen (`?since=`) so nothing is lost while the socket was down.
 * It stops on its own when a newer connection of the same device replaced it (close code 4001: reconnecting
 * would replace that one in turn, forever) or when the server refuses the token (401); see [Status.Replaced]
 * and [Status.Unauthorized].
 *
 * Thread-safe. Callbacks run on the transport's or the loop's thread, outside the stream's lock; events are
 * delivered in `seq` order.
 *
 * @param api the logged-in user's client (gives the URL and credentials).
 * @param deviceId this device's id.
 * @param transport how to open WebSockets, e.g. `OkHttpWebSocketTransport`.
 * @param scope where the connection loop runs (e.g. the app's process-wide scope on `Dispatchers.IO`).
 * @param onEvent each new event, in `seq` order (older or repeated ones are dropped).
 * @param onStatus connection state changes.
 * @param onResumePoint [lastSeq] moved forward (an event, or the server's resume point); persist it for the
 *   user and pass it to [start] after a relaunch.
 * @param onServerTime the server's clock as `stream.ready` told it (`server_time_ms`, Unix milliseconds),
 *   called as the frame is read; give it to the call coordinator, which judges ring deadlines on it.
 * @param now the clock the reconnect waits are measured on, Unix milliseconds.
 * @param sleepUntil suspends until [now] reads at least the given time; must return or throw when cancelled.
 * @param random a number in `0..1` for the reconnect backoff's jitter.
 */
class EventStream(
    private val api: RingerApiClient,
    private val deviceId: String,
    private val transport: WebSocketTransport,
    private val scope: CoroutineScope,
    private val onEvent: (CallEvent) -> Unit,
    private val onStatus: (Status) -> Unit = {},
    private val onResumePoint: (Long) -> Unit = {},
    private val onServerTime: (Long) -> Unit = {},
    private val now: () -> Long = { System.currentTimeMillis() },
    private val sleepUntil: suspend (Long) -> Unit = { until -> delay(until - now()) },
    random: () -> Double = { Math.random() }
) {
    /** The connection state, for the app's UI ("reconnecting…") and the call coordinator. */
    sealed class Status {
        /** Connected and receiving (the first connection). */
        object Connected : Status() {
            override fun toString() = "Connected"
        }

        /**
         * The socket dropped, or an attempt failed; a new attempt follows after [retryInMs] milliseconds. An
         * active call goes on (its media does not use this socket); events wait on the server.
         */
        data class Lost(val retryInMs: Long) : Status()

        /**
         * Connected again after [Lost]: what happened meanwhile is being replayed from the resume point
         * ([lastSeq]), so the app need not refetch its calls.
         */
        object Restored : Status() {
            override fun toString() = "Restored"
        }

        /** Stopped by [stop]. */
        object Closed : Status() {
            override fun toString() = "Closed"
        }

        /**
         * Stopped because another connection of this device took over (close code 4001: one socket per device
         * id, the newest wins); call [start] again to take the socket back.
         */
        object Replaced : Status() {
            override fun toString() = "Replaced"
        }

        /** Stopped because the server refused the user token (HTTP 401 at the upgrade): get a new token. */
        object Unauthorized : Status() {
            override fun toString() = "Unauthorized"
        }

        /**
         * The server closed the socket with 1009 (a message from this client over its limit): a client bug worth
         * reporting. A new attempt follows after [retryInMs] milliseconds, as for [Lost].
         */
        data class MessageTooBig(val retryInMs: Long) : Status()

        /**
         * Stopped because the server refused the upgrade with another 4xx status (422: a `device_id` it does not
         * accept; 404: a wrong URL): the same request would be refused again.
         */
        data class Refused(val httpStatus: Int) : Status()
    }

    private val lock = Any()
    /** The highest event `seq` received: older or repeated events are dropped. */
    private var receivedSeq: Long? = null
    /** Where the server said the stream went live (`stream.ready`); may be ahead of [receivedSeq]. */
    private var readySeq: Long? = null
    private var channel: WebSocketChannel? = null
    private var loop: Job? = null
    private var stopped = false
    private val reconnect = EventStreamReconnect(random)

    /** The `since` of the next connection (call with the lock held). */
    private val resumeSeq: Long?
        get() {
            val ready = readySeq ?: return receivedSeq
            return maxOf(receivedSeq ?: ready, ready)
        }

    /**
     * Where the stream resumes after a drop: the highest event `seq` received, or the server's resume point if
     * that is newer (so an app that never received an event still replays what it misses). Persist it and pass
     * it to [start] after a relaunch.
     */
    val lastSeq: Long? get() = synchronized(lock) { resumeSeq }

    /**
     * Connects and keeps the stream open until [stop]. No-op while running or after [stop].
     * @param since resume after this `seq` (e.g. persisted from a previous launch); null keeps the current one.
     */
    fun start(since: Long? = null) {
        val job = synchronized(lock) {
            if (loop != null || stopped) return
            if (since != null) receivedSeq = since
            val job = scope.launch(start = CoroutineStart.LAZY) { run() }
            loop = job
            job
        }
        job.start()
    }

    /** Closes the stream for good; reports [Status.Closed] once, however often it is called. */
    fun stop() {
        val (open, job, wasStopped) = synchronized(lock) {
            val result = Triple(channel, loop, stopped)
            stopped = true
            channel = null
            result
        }
        job?.cancel()
        open?.close()
        if (!wasStopped) onStatus(Status.Closed)
    }

    private suspend fun run() {
        var failures = 0
        var wasConnected = false
        while (!synchronized(lock) { stopped }) {
            val closed = CompletableDeferred<WebSocketClose>()
            val url = api.eventsUrl(deviceId, lastSeq)
            val ending: EventStreamReconnect.Ending = try {
                val opened = transport.connect(url, api.authorizationHeaders, { receive(it) }, { closed.complete(it) })
                val keep = synchronized(lock) {
                    if (!stopped) channel = opened
                    !stopped
                }
                if (!keep) {
                    opened.close()
                    return
                }
                failures = 0
                onStatus(if (wasConnected) Status.Restored else Status.Connected)
                wasConnected = true
                EventStreamReconnect.Ending.Closed(closed.await())
            } catch (e: CancellationException) {
                throw e
            } catch (e: WebSocketUpgradeRefused) {
                failures += 1
                EventStreamReconnect.Ending.Refused(e.status)
            } catch (e: Exception) {
                failures += 1
                EventStreamReconnect.Ending.Failed
            }
            val action = reconnect.decide(ending, failures)
            when (action) {
                is EventStreamReconnect.Action.Stop -> {
                    // The loop ends here; clearing it lets the app start again (even from onStatus).
                    val report = synchronized(lock) {
                        loop = null
                        channel = null
                        !stopped
                    }
                    if (report) onStatus(action.status)
                    return
                }
                is EventStreamReconnect.Action.Reconnect -> {
                    val report = synchronized(lock) {
                        channel = null
                        !stopped
                    }
                    if (!report) return
                    onStatus(action.status)
                    sleepUntil(now() + action.delayMs)
                    failures = maxOf(failures, 1)
                }
            }
        }
    }

    private fun receive(text: String) {
        val json = try {
            RingerJson.parseObject(text, "frame")
        } catch (e: RingerWireException) {
            return
        }
        if (json.opt("type") == EventType.STREAM_READY.rawValue) {
            val ready = try {
                StreamReady.fromJson(json)
            } catch (e: RingerWireException) {
                return
            }
            receiveReady(ready)
            return
        }
        val event = try {
            CallEvent.fromJson(json)
        } catch (e: RingerWireException) {
            return
        }
        receiveEvent(event)
    }

    private fun receiveReady(ready: StreamReady) {
        val moved = synchronized(lock) {
            val before = resumeSeq
            readySeq = maxOf(readySeq ?: ready.seq, ready.seq)
            if (resumeSeq != before) resumeSeq else null
        }
        ready.serverTimeMs?.let { onServerTime(it) }
        if (moved != null) onResumePoint(moved)
    }

    private fun receiveEvent(event: CallEvent) {
        // Whether the event is new and whether the resume point moved are separate questions: an event already on
        // its way when the server sent `stream.ready` has a `seq` at or below the ready one, so it leaves the
        // resume point where it is, yet it must still be delivered (docs/openapi.yaml, GET /v1/events).
        var isNew = false
        val movedTo = synchronized(lock) {
            val last = receivedSeq
            if (last != null && event.seq <= last) return@synchronized null
            isNew = true
            val before = resumeSeq
            receivedSeq = event.seq
            if (resumeSeq != before) resumeSeq else null
        }
        if (!isNew) return
        onEvent(event)
        if (movedTo != null) onResumePoint(movedTo)
    }

    /** The device and resume point; never the token. */
    override fun toString(): String = "EventStream(deviceId=$deviceId, lastSeq=$lastSeq)"
}
