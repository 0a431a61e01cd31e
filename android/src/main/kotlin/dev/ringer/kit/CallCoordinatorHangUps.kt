package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.launch

// Durable hang-ups (Swift: CallCoordinator+HangUps.swift): a decline, cancel or end is stored before it is sent, and
// sent until the server answers it.

/**
 * Read-modify-write of the stored hang-ups as one step: a decline stored while another call's
 * acknowledgement is being settled on another thread must not be overwritten by it.
 */
internal fun CallCoordinator.updatePendingActions(change: (List<PendingCallAction>) -> List<PendingCallAction>) =
    synchronized(pendingActionsLock) { pendingActions.save(change(pendingActions.load())) }

/**
 * Sends a stored hang-up until the server answers it (success, or a refusal that retrying cannot change),
 * retrying transient failures ([RingerApiException.isRetryable], or no readable answer) with jittered backoff
 * for as long as the process runs, up to [CallCoordinator.HANG_UP_LIFETIME_MS] after the user acted: a short
 * outage never loses a decline. It leaves the store once answered or too old; a process that dies first, or a
 * logout, leaves it for the next [CallCoordinator.connect].
 */
internal fun CallCoordinator.send(action: PendingCallAction) {
    val callId = action.callId
    if (!synchronized(lock) { state.sending.add(callId) }) return
    val expiry = action.createdAtMs + CallCoordinator.HANG_UP_LIFETIME_MS
    scope.launch {
        val settled = try {
            sendUntilSettled(action, expiry)
        } finally {
            synchronized(lock) { state.sending.remove(callId) }
        }
        // Unsent (nobody logged in): it stays stored for the next connect.
        if (settled == null) return@launch
        // This action only: a hang-up of another kind stored for the call since is still to be sent.
        updatePendingActions { stored -> stored.filter { it != action } }
        // What a refusal means for the call is the machine's to say (a decline that lost to this device's own
        // answer must end the call instead).
        val problem = settled.refusal
        if (problem != null) apply(PhoneCallInput.HangUpRefused(callId, action.kind, problem))
    }
}

/** How a stored hang-up was settled: answered, or refused with [refusal]; or too old to send (no refusal). */
internal class HangUpSettled(val refusal: Problem?)

/**
 * Sends [action] until the server answers it, retrying what retrying may change, up to [expiryMs] (phone clock).
 * @return how it was settled; null when no user is logged in (it waits for the next [connect]).
 */
internal suspend fun CallCoordinator.sendUntilSettled(action: PendingCallAction, expiryMs: Long): HangUpSettled? {
    var retry = 0
    while (now() < expiryMs) {
        val api = api(expiryMs) ?: return null
        try {
            hangUp(action, api)
            return HangUpSettled(null)
        } catch (e: CancellationException) {
            throw e
        } catch (e: RingerApiException) {
            if (!e.isRetryable) {
                observer(CallCoordinator.Observation.RequestFailed(action.callId, e.detail))
                return HangUpSettled(e.problem)   // answered: retrying cannot change it
            }
        } catch (e: Exception) {
            // Not an answer the API could read: the next round tries again.
        }
        retry += 1
        sleepUntil(now() + CallCoordinator.REQUEST_BACKOFF.delayMs(retry, random()))
    }
    return HangUpSettled(null)
}

/**
 * One attempt at a stored hang-up.
 * @throws RingerApiException the server's refusal, or no answer.
 */
internal suspend fun CallCoordinator.hangUp(action: PendingCallAction, api: RingerApiClient) {
    val callId = action.callId
    when (action.kind) {
        PendingCallAction.Kind.DECLINE -> api.decline(callId, action.deviceId)
        PendingCallAction.Kind.CANCEL -> api.cancel(callId)
        PendingCallAction.Kind.END -> api.end(callId)
    }
}
