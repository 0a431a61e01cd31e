public import Foundation
import RingerSupport
import RingerWire

/// The accept of an answered call, sent until the server or the call's deadline says no.
extension CallCoordinator {
    // MARK: Answers

    /// Retry waits of an answer: 0.25…0.5 s, doubling, at most 1…2 s, so an answer given during a short outage
    /// connects within two seconds of the network's return.
    static let answerBackoff = Backoff(initialDelay: 0.5, maximumDelay: 2)

    /// Seconds one accept may take before it counts as lost and the next is sent: a request caught in a dropped
    /// connection would otherwise wait out the transport's own timeout (URLSession: 60 s by default) while the
    /// ring time runs out. An accept of a few hundred bytes takes well under this on any network that can carry
    /// the call's audio.
    public static let acceptAttemptLimit: TimeInterval = 5

    /// Thrown when an accept took longer than ``acceptAttemptLimit``.
    struct AttemptTimedOut: Error {}

    /// Sends the accept of an answered call until the server answers it (confirmed, or refused with a problem)
    /// or the call is no longer answering here (its deadline, an end, a logout), waiting for the API while the
    /// app launches. Transport failures, 5xx answers and unreadable ones are retried: the server's accept is
    /// idempotent for this device, so a repeat of an accept that landed is confirmed too.
    func sendAccept(_ callID: String) {
        guard state.withLock({ $0.accepting.insert(callID).inserted }) else { return }
        let (observer, deviceID, now, sleepUntil, random) = (
            self.observer, self.deviceID, self.now, self.sleepUntil, self.random
        )
        Task { [weak self] in
            defer { _ = self?.state.withLock { $0.accepting.remove(callID) } }
            var retry = 0
            while true {
                guard let self,
                    let deadline = self.state.withLock({ state -> Date? in
                        guard let call = state.machine.calls[callID], call.phase == .answering else { return nil }
                        return call.localDeadline + PhoneCallMachine.deadlineGrace
                    })
                else { return }
                guard let api = await self.api(waitingUntil: deadline) else { return }
                do {
                    let response = try await Self.within(Self.acceptAttemptLimit, now: now, sleepUntil: sleepUntil) {
                        try await api.accept(callID: callID, deviceID: deviceID)
                    }
                    self.apply(.answerConfirmed(callID: callID), media: response.media)
                    return
                } catch let error as RingerAPIError {
                    if let problem = error.problem, !error.isRetryable {
                        observer(.requestFailed(callID: callID, detail: error.description))
                        self.apply(.answerRefused(callID: callID, problem: problem))
                        return
                    }
                } catch {
                    // Not an answer the API could read, or none within the attempt limit: the next round tries again.
                }
                retry += 1
                let delay = Self.answerBackoff.delay(beforeRetry: retry, random: random())
                guard (try? await sleepUntil(now().addingTimeInterval(delay))) != nil else { return }
            }
        }
    }

    /// Runs `body`, abandoning it once `limit` seconds pass on the coordinator's clock (its task is cancelled:
    /// URLSession cancels the request).
    /// - Throws: ``AttemptTimedOut`` when the limit passed first; else what `body` throws.
    static func within<T: Sendable>(
        _ limit: TimeInterval, now: @escaping @Sendable () -> Date,
        sleepUntil: @escaping @Sendable (Date) async throws -> Void,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await sleepUntil(now().addingTimeInterval(limit))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw AttemptTimedOut() }
            return value
        }
    }
}
