package dev.ringer.kit

/**
 * What [EventStream] does after a connection ended or an attempt failed, decided from how it ended: input in,
 * action out, no I/O (the stream's loop carries the action out; the backoffs' jitter is injected).
 *
 * The server's codes (docs/openapi.yaml, `GET /v1/events`): 4001 means a newer socket of the same device took
 * over, and reconnecting would close that one with 4001 in turn, so two streams of one device would replace
 * each other forever; a 401 refusal means the token is no longer accepted, and retrying with it cannot help;
 * 429 means the user holds the server's cap of sockets, which frees up only when another device disconnects,
 * so it is retried slowly; 1009 means this client sent a message over the server's limit (a bug worth
 * reporting); any other 4xx refusal but 408 (a 422 for a device id the server refuses) means the request is
 * wrong and would be refused again; 1001 (server going away), 1006 (dropped) and the rest are ordinary drops.
 *
 * @param random a number in `0..1` for the backoffs' jitter.
 * @param reconnectBackoff waits after drops and failed attempts: 125…250 ms after a drop, doubling per failed
 *   attempt, at most 30 s.
 * @param tooManySocketsBackoff waits after a 429 refusal: 2.5…5 s after the first, doubling, at most 2 minutes.
 */
class EventStreamReconnect(
    private val random: () -> Double,
    val reconnectBackoff: Backoff = Backoff(initialDelayMs = 250, maximumDelayMs = 30_000),
    val tooManySocketsBackoff: Backoff = Backoff(initialDelayMs = 5_000, maximumDelayMs = 120_000)
) {
    /** How one attempt ended. */
    sealed class Ending {
        /** The socket opened, then closed with [close]. */
        data class Closed(val close: WebSocketClose) : Ending()
        /** The server refused the upgrade with [httpStatus]. */
        data class Refused(val httpStatus: Int) : Ending()
        /** The attempt failed without an HTTP answer (refused port, DNS, TLS, timeout). */
        object Failed : Ending()
    }

    /** What to do next. */
    sealed class Action {
        /** Report [status], wait [delayMs] milliseconds, connect again. */
        data class Reconnect(val delayMs: Long, val status: EventStream.Status) : Action()
        /** Report [status] and stop; the app may call [EventStream.start] again. */
        data class Stop(val status: EventStream.Status) : Action()
    }

    /**
     * Decides the next step.
     * @param ending how the attempt ended.
     * @param failures how often in a row the stream has failed to get an open socket, this attempt included:
     *   0 when a socket that had opened closed; a drop that was already retried counts as one.
     */
    fun decide(ending: Ending, failures: Int): Action {
        if (ending is Ending.Closed && ending.close.code == REPLACED_CODE) return Action.Stop(EventStream.Status.Replaced)
        if (ending is Ending.Refused) {
            val status = ending.httpStatus
            if (status == 401) return Action.Stop(EventStream.Status.Unauthorized)
            if (status == 429) {
                val delay = tooManySocketsBackoff.delayMs(maxOf(failures, 1), random())
                return Action.Reconnect(delay, EventStream.Status.Lost(delay))
            }
            // The request itself is wrong (422 for a device id the server refuses, 404 for a wrong path).
            if (status in 400..499 && status != 408) return Action.Stop(EventStream.Status.Refused(status))
        }
        val delay = reconnectBackoff.delayMs(failures + 1, random())
        if (ending is Ending.Closed && ending.close.code == MESSAGE_TOO_BIG_CODE) {
            return Action.Reconnect(delay, EventStream.Status.MessageTooBig(delay))
        }
        return Action.Reconnect(delay, EventStream.Status.Lost(delay))
    }

    /** The server's close codes. */
    companion object {
        /** Close code of a socket replaced by a newer one of the same device. */
        const val REPLACED_CODE = 4001
        /** Close code (RFC 6455 §7.4.1) for a message over the receiver's limit. */
        const val MESSAGE_TOO_BIG_CODE = 1009
    }
}
