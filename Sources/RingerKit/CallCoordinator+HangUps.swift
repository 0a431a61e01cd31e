public import Foundation
import RingerSupport
import RingerWire

/// Durable hang-ups: a decline, cancel or end is stored before it is sent, and sent until the server answers it.
extension CallCoordinator {
    /// Seconds a hang-up is worth sending: past it the server has ended the call itself (ring deadline, idle
    /// timeout), so an older one is dropped rather than sent.
    public static let hangUpLifetime: TimeInterval = PhoneCallMachine.endedUnseenLifetime

    /// Sends a stored hang-up until the server answers it (success, or a refusal that retrying cannot change),
    /// retrying transient failures (``RingerAPIError/isRetryable``) with jittered backoff for as long as the
    /// process runs, up to ``hangUpLifetime`` after the user acted: a short outage never loses a decline. It
    /// leaves the store once answered or too old; a process that dies first sends it at the next
    /// ``connect(api:)``.
    func send(_ action: PendingCallAction) {
        guard sending.withLock({ $0.insert(action.callID).inserted }) else { return }
        let (callID, observer, now, sleepUntil, random) = (action.callID, observer, now, sleepUntil, random)
        let expiry = action.createdAt.addingTimeInterval(Self.hangUpLifetime)
        Task { [weak self] in
            var retry = 0
            var refusal: Problem?
            while now() < expiry {
                guard let api = await self?.api(waitingUntil: expiry) else {
                    _ = self?.sending.withLock { $0.remove(callID) }
                    return
                }
                do {
                    try await Self.hangUp(action, api: api)
                    break
                } catch let error as RingerAPIError where !error.isRetryable {
                    observer(.requestFailed(callID: callID, detail: error.description))
                    refusal = error.problem
                    break  // answered: retrying cannot change it
                } catch {
                    retry += 1
                    let delay = Self.requestBackoff.delay(beforeRetry: retry, random: random())
                    guard (try? await sleepUntil(now().addingTimeInterval(delay))) != nil else {
                        _ = self?.sending.withLock { $0.remove(callID) }
                        return
                    }
                }
            }
            // This action only: a hang-up of another kind stored for the call since is still to be sent.
            self?.updatePendingActions { $0.filter { $0 != action } }
            _ = self?.sending.withLock { $0.remove(callID) }
            // What the refusal means for the call is the machine's to say (a decline that lost to this device's own
            // answer must end the call instead).
            if let refusal { self?.apply(.hangUpRefused(callID: callID, action.kind, problem: refusal)) }
        }
    }

    /// Read-modify-write of the stored hang-ups as one step: a decline stored while another call's acknowledgement
    /// is being settled on another task must not be overwritten by it. Taken inside the state lock (never the other
    /// way round).
    func updatePendingActions(_ change: ([PendingCallAction]) -> [PendingCallAction]) {
        pendingActionsLock.withLock { _ in pendingActions.save(change(pendingActions.load())) }
    }

    /// One attempt at a stored hang-up.
    /// - Throws: ``RingerAPIError``.
    static func hangUp(_ action: PendingCallAction, api: RingerAPIClient) async throws {
        let callID = action.callID
        switch action.kind {
        case .decline: _ = try await api.decline(callID: callID, deviceID: action.deviceID)
        case .cancel: _ = try await api.cancel(callID: callID)
        case .end: _ = try await api.end(callID: callID)
        }
    }
}
