import Foundation
import RingerSync

/// One request as handed to the loop thread, plus the awaiting side: the continuation and the
/// cancellation flag. Shared by the caller's task, its cancellation handler and the loop thread.
final class PendingResponse: Sendable {
    private struct State {
        var continuation: CheckedContinuation<HTTP2Response, any Error>?
        /// Holds a result that arrived before the continuation was installed.
        var earlyOutcome: Result<HTTP2Response, any Error>?
        var isResolved = false
        var isCancelled = false
    }

    /// The request to perform; read by the loop thread.
    let request: HTTP2Request
    /// When the request's ``HTTP2Request/timeout`` runs out, counted from the hand-off; covers every attempt.
    let deadline: ContinuousClock.Instant
    /// Scheme, host and port of the URL (`https://api.push.apple.com:443`, lowercased): the unit of the
    /// reconnect backoff.
    let origin: String
    private let state = LockedValue(State())

    init(request: HTTP2Request) {
        self.request = request
        // Clamped so an absurd timeout cannot overflow Duration; a year is "no deadline" here.
        deadline = ContinuousClock.now + .seconds(min(request.timeout, 365 * 86_400))
        origin = Self.origin(of: request.url)
    }

    /// Everything before the path of an absolute URL, lowercased (ASCII: a validated URL has no other
    /// letters); the whole URL, lowercased, if it has no `://`.
    static func origin(of url: String) -> String {
        let bytes = Array(url.utf8)
        var end = bytes.count
        // The first "://", then the first "/", "?" or "#" after it.
        if let schemeEnd = (0..<max(0, bytes.count - 2)).first(where: {
            bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: "/") && bytes[$0 + 2] == UInt8(ascii: "/")
        }) {
            end = (schemeEnd + 3..<bytes.count).first { index in
                bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "#")
            } ?? bytes.count
        }
        return String(decoding: bytes[..<end].lazy.map(ASCII.lowercased), as: UTF8.self)
    }

    /// Installs the continuation to resume; resumes it at once if the outcome is already known.
    func install(_ continuation: CheckedContinuation<HTTP2Response, any Error>) {
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
        let continuation: CheckedContinuation<HTTP2Response, any Error>? = state.withLock { state in
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
