import Foundation
import Synchronization

/// One request as handed to the loop thread, plus the awaiting side: the continuation and the
/// cancellation flag. Shared by the caller's task, its cancellation handler and the loop thread.
final class PendingResponse: Sendable {
    private struct State {
        // Unsafe, not checked: `isResolved` already guarantees one resume, and a checked continuation allocates
        // a canary object for every request.
        var continuation: UnsafeContinuation<HTTP2Response, any Error>?
        /// Holds a result that arrived before the continuation was installed.
        var earlyOutcome: Result<HTTP2Response, any Error>?
        var isResolved = false
        var isCancelled = false
    }

    /// The request to perform; read by the loop thread.
    let request: HTTP2Request
    /// When the request's ``HTTP2Request/timeout`` runs out, counted from the hand-off; covers every attempt.
    let deadline: ContinuousClock.Instant
    /// Where it goes: the connection key and the pseudo-header values.
    let target: RequestTarget
    /// Inline, not a separate lock object: one allocation fewer for every request.
    private let state = Mutex(State())

    /// - Parameters:
    ///   - request: the validated request.
    ///   - target: its URL, split (see ``RequestTarget/parse(url:reusing:)``).
    init(request: HTTP2Request, target: RequestTarget) {
        self.request = request
        self.target = target
        // Clamped so an absurd timeout cannot overflow Duration; a year is "no deadline" here.
        deadline = ContinuousClock.now + .seconds(min(request.timeout, 365 * 86_400))
    }

    /// Installs the continuation to resume; resumes it at once if the outcome is already known.
    func install(_ continuation: UnsafeContinuation<HTTP2Response, any Error>) {
        let early: Result<HTTP2Response, any Error>? = state.withLock { state in
            if let outcome = state.earlyOutcome {
                state.earlyOutcome = nil
                return outcome
            }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(with: early)
        }
    }

    /// Delivers the outcome. Only the first call has an effect, so the continuation resumes exactly once
    /// however completion, cancellation and shutdown race.
    func resolve(_ outcome: Result<HTTP2Response, any Error>) {
        let continuation: UnsafeContinuation<HTTP2Response, any Error>? = state.withLock { state in
            guard !state.isResolved else { return nil }
            state.isResolved = true
            guard let continuation = state.continuation else {
                state.earlyOutcome = outcome
                return nil
            }
            state.continuation = nil
            return continuation
        }
        // Resumed outside the lock: resuming schedules the task, which must not run under our lock.
        continuation?.resume(with: outcome)
    }

    /// Records that the awaiting task was cancelled; the loop thread checks this before starting.
    func markCancelled() {
        state.withLock { $0.isCancelled = true }
    }

    /// True once ``markCancelled()`` was called.
    var isCancelled: Bool {
        state.withLock { $0.isCancelled }
    }
}
