package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import kotlinx.coroutines.launch

// The request runner (Swift: CallCoordinator+Requests.swift): API requests retried with backoff on the injected
// clock.

/**
 * Runs an API request with retries (exponential backoff on the injected clock) while it fails for transient
 * reasons ([RingerApiException.isRetryable]). A problem retrying cannot change is final: [onFailure] gets it; giving
 * up without one (the last try failed transiently too, no API, an unreadable answer) gives null, since a transient
 * failure says nothing about the request.
 */
internal fun CallCoordinator.perform(callId: String, attempts: Int = CallCoordinator.REQUEST_ATTEMPTS,
                    onFailure: ((Problem?) -> Unit)? = null,
                    body: suspend (RingerApiClient, String) -> Unit): Job {
    val deadline = synchronized(lock) { state.machine.calls[callId]?.localDeadlineMs } ?: now() + 60_000
    return scope.launch {
        for (attempt in 1..attempts) {
            val api = api(deadline) ?: break
            try {
                body(api, deviceId)
                return@launch
            } catch (e: CancellationException) {
                throw e
            } catch (e: RingerApiException) {
                if (e.isRetryable && attempt < attempts) {
                    sleepUntil(now() + CallCoordinator.REQUEST_BACKOFF.delayMs(attempt, random()))
                    continue
                }
                observer(CallCoordinator.Observation.RequestFailed(callId, e.detail))
                onFailure?.invoke(if (e.isRetryable) null else e.problem)
                return@launch
            } catch (e: Exception) {
                observer(CallCoordinator.Observation.RequestFailed(callId, e.toString()))
                onFailure?.invoke(null)
                return@launch
            }
        }
        onFailure?.invoke(null)
    }
}
