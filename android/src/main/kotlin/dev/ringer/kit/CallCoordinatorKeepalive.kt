package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.launch

// Answered calls kept alive on the server while the event stream is down (Swift: CallCoordinator+Keepalive.swift).

/**
 * Runs the keepalive loop of an answered call until it ends here: every [keepaliveIntervalMs], a keepalive
 * when the event stream is not connected. A 4xx refusal (the server ended the call, e.g. `connection_lost`)
 * closes the native call with the server's reason.
 */
internal fun CallCoordinator.keepAlive(callId: String) {
    if (!synchronized(lock) { state.keptAlive.add(callId) }) return
    // The rounds count from the answer, not from whenever the coroutine first runs.
    val answeredAt = now()
    scope.launch {
        try {
            var next = answeredAt
            while (true) {
                next += keepaliveIntervalMs
                sleepUntil(next)
                val (active, connected, session) = synchronized(lock) {
                    Triple(state.machine.phase(callId) == PhoneCallMachine.Phase.ACTIVE, state.streamConnected,
                           state.session)
                }
                if (!active) return@launch
                val loggedIn = session as? CallCoordinator.Session.LoggedIn
                if (connected || loggedIn == null) continue
                try {
                    loggedIn.api.keepalive(callId)
                } catch (e: RingerApiException) {
                    val status = e.problem?.status ?: continue
                    if (status !in 400..499) continue
                    // The call is over on the server: read why, then close it here.
                    val call = try {
                        loggedIn.api.call(callId)
                    } catch (e: RingerApiException) {
                        null
                    }
                    apply(PhoneCallInput.KeepaliveRefused(callId, call))
                    return@launch
                } catch (e: CancellationException) {
                    throw e
                } catch (e: Exception) {
                    continue   // no answer: the next round tries again
                }
            }
        } finally {
            synchronized(lock) { state.keptAlive.remove(callId) }
        }
    }
}
