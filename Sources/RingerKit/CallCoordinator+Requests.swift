import Foundation
import RingerSupport
import RingerWire

/// The request runner: API requests retried with backoff on the injected clock.
extension CallCoordinator {
    // MARK: Requests

    /// Retry delays of call requests: from 0.125…0.25 s, doubling, at most 8 s.
    static let requestBackoff = Backoff(initialDelay: 0.25, maximumDelay: 8)

    /// Tries of a call request the machine does not keep retrying itself (`ringing`, reading the media session or
    /// a call): the one count for all of them, as in the Kotlin SDK (`CallCoordinator.REQUEST_ATTEMPTS`). Answers
    /// and hang-ups are retried by the machine until their deadline instead (``PhoneCallMachine``).
    static let requestAttempts = 3

    /// Runs an API request with retries (exponential backoff on the injected clock) while it fails for
    /// transient reasons (``RingerAPIError/isRetryable``). A problem retrying cannot change is final: `onFailure`
    /// gets it; giving up without one (the last try failed transiently too, no API, an unreadable answer) gives
    /// nil, since a transient failure says nothing about the request.
    func perform(
        callID: String, attempts: Int = CallCoordinator.requestAttempts,
        onFailure: (@Sendable (Problem?) -> Void)? = nil,
        _ body: @escaping @Sendable (RingerAPIClient, String) async throws -> Void
    ) {
        let (observer, deviceID, now, sleepUntil, random) = (
            self.observer, self.deviceID, self.now, self.sleepUntil, self.random
        )
        let deadline = state.withLock { $0.machine.calls[callID]?.localDeadline } ?? now().addingTimeInterval(60)
        Task { [weak self] in
            for attempt in 1...attempts {
                guard let api = await self?.api(waitingUntil: deadline) else { break }
                do {
                    try await body(api, deviceID)
                    return
                } catch let error as RingerAPIError where error.isRetryable && attempt < attempts {
                    let delay = Self.requestBackoff.delay(beforeRetry: attempt, random: random())
                    try? await sleepUntil(now().addingTimeInterval(delay))
                } catch let error as RingerAPIError {
                    observer(.requestFailed(callID: callID, detail: error.description))
                    onFailure?(error.isRetryable ? nil : error.problem)
                    return
                } catch {
                    observer(.requestFailed(callID: callID, detail: String(describing: error)))
                    onFailure?(nil)
                    return
                }
            }
            onFailure?(nil)
        }
    }
}
