package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch

// The accept of an answered call (Swift: CallCoordinator+Answers.swift), sent until the server or the call's
// deadline says no.

/**
 * Sends the accept of an answered call until the server answers it (confirmed, or refused with a problem) or
 * the call is no longer answering here (its deadline, an end, a logout), waiting for the API while the app
 * launches. Transport failures, 5xx, 408, 429 and unreadable answers are retried with
 * [CallCoordinator.ANSWER_BACKOFF]: the server's accept is idempotent for this device, so a repeat of an accept
 * that landed is confirmed too.
 */
internal fun CallCoordinator.sendAccept(callId: String) {
    if (!synchronized(lock) { state.accepting.add(callId) }) return
    scope.launch {
        try {
            var retry = 0
            while (true) {
                val deadline = synchronized(lock) {
                    val call = state.machine.calls[callId]
                    if (call?.phase != PhoneCallMachine.Phase.ANSWERING) null
                    else call.localDeadlineMs + PhoneCallMachine.DEADLINE_GRACE_MS
                } ?: return@launch
                val api = api(deadline) ?: return@launch
                try {
                    val response = within(CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS) { api.accept(callId, deviceId) }
                        ?: throw AttemptTimedOut()
                    apply(PhoneCallInput.AnswerConfirmed(callId), media = response.media)
                    return@launch
                } catch (e: CancellationException) {
                    // This loop's own cancellation (the scope stopped) ends it. One the transport threw of its own
                    // accord (a `withTimeout` inside an app's transport) is a failed attempt: the answer is sent again,
                    // as Swift's loop does.
                    if (!isActive) throw e
                } catch (e: RingerApiException) {
                    val problem = e.problem
                    if (problem != null && !e.isRetryable) {
                        observer(CallCoordinator.Observation.RequestFailed(callId, e.detail))
                        apply(PhoneCallInput.AnswerRefused(callId, problem))
                        return@launch
                    }
                } catch (e: Exception) {
                    // Not an answer the API could read, or none within the attempt limit: the next round tries again.
                }
                retry += 1
                sleepUntil(now() + CallCoordinator.ANSWER_BACKOFF.delayMs(retry, random()))
            }
        } finally {
            synchronized(lock) { state.accepting.remove(callId) }
        }
    }
}

/** Thrown when an accept took longer than [CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS]. */
private class AttemptTimedOut : Exception("no answer within the attempt limit")

/** How one attempt of [within] ended: the only thing that passes from the attempt to whoever waits for it. */
private sealed class AttemptOutcome<out T> {
    class Returned<T>(val value: T) : AttemptOutcome<T>()
    class Threw(val error: Throwable) : AttemptOutcome<Nothing>()
    object TimedOut : AttemptOutcome<Nothing>()
}

/**
 * Runs [body] in the coordinator's scope, abandoning it once [limitMs] pass on the coordinator's clock (its coroutine
 * is cancelled: the OkHttp transport cancels the call).
 *
 * What [body] threw reaches the waiter as a value, never as an exception, so a failure that comes after the waiter was
 * cancelled (the scope stopped while a transport that ignores cancellation was still sending) goes nowhere. As an
 * exception it would reach the thread's uncaught-exception handler under kotlinx-coroutines 1.0, which kills an Android
 * app: there a cancelled `Deferred.await` stays registered, and a cancelled continuation resumed with an exception
 * reports it as uncaught (`JobSupport.awaitSuspend`, `AbstractContinuation.resumeImpl`; changed in 1.1, kotlinx.coroutines
 * issue #893).
 * @return what [body] returned; null when the limit passed first.
 * @throws Throwable what [body] threw.
 */
private suspend fun <T : Any> CallCoordinator.within(limitMs: Long, body: suspend () -> T): T? {
    val outcome = CompletableDeferred<AttemptOutcome<T>>()
    val work = scope.launch {
        val ended = try {
            AttemptOutcome.Returned(body())
        } catch (e: Throwable) {
            AttemptOutcome.Threw(e)
        }
        outcome.complete(ended)
    }
    val timer = scope.launch {
        sleepUntil(now() + limitMs)
        outcome.complete(AttemptOutcome.TimedOut)
    }
    try {
        val ended = outcome.await()
        return when (ended) {
            is AttemptOutcome.Returned -> ended.value
            is AttemptOutcome.Threw -> throw ended.error
            is AttemptOutcome.TimedOut -> null
        }
    } finally {
        timer.cancel()
        work.cancel()
    }
}
