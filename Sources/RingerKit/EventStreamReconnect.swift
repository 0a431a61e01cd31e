public import Foundation
import RingerSupport

/// What ``EventStream`` does after a connection ended or an attempt failed, decided from how it ended: input
/// in, action out, no I/O (the stream's loop carries the action out; the backoffs' jitter is injected).
///
/// The server's codes (docs/openapi.yaml, GET /v1/events): 4001 means a newer socket of the same device
/// took over, and reconnecting would close that one with 4001 in turn, so two streams of one device would
/// replace each other forever; a 401 refusal means the token is no longer accepted, and retrying with it
/// cannot help; 429 means the user holds the server's cap of sockets, which frees up only when another
/// device disconnects, so it is retried slowly; 1009 means this client sent a message over the server's
/// limit (a bug worth reporting); any other 4xx refusal but 408 (a 422 for a device id the server refuses)
/// means the request is wrong and would be refused again; 1001 (server going away), 1006 (dropped) and the
/// rest are ordinary drops.
struct EventStreamReconnect: Sendable {
    /// How one attempt ended.
    enum Ending: Sendable, Equatable {
        /// The socket opened, then closed with this code and reason.
        case closed(WebSocketClose)
        /// The server refused the upgrade with this HTTP status.
        case refused(httpStatus: Int)
        /// The attempt failed without an HTTP answer (refused port, DNS, TLS, timeout), or the transport
        /// could not tell the status.
        case failed
    }

    /// What to do next.
    enum Action: Sendable, Equatable {
        /// Report `status`, wait `delay` seconds, connect again.
        case reconnect(after: TimeInterval, status: EventStream.Status)
        /// Report `status` and stop; the app may call ``EventStream/start(since:)`` again.
        case stop(status: EventStream.Status)
    }

    /// The server's close code for a socket replaced by a newer one of the same device.
    static let replacedCode: UInt16 = 4001
    /// RFC 6455 §7.4.1: the peer received a message too big to process.
    static let messageTooBigCode: UInt16 = 1009

    /// Waits after drops and failed attempts: 0.125…0.25 s after a drop, doubling per failed attempt, at
    /// most 30 s.
    var reconnectBackoff = Backoff(initialDelay: 0.25, maximumDelay: 30)
    /// Waits after a 429 refusal: 2.5…5 s after the first, doubling, at most 2 minutes (a slot frees
    /// only when another of the user's devices disconnects).
    var tooManySocketsBackoff = Backoff(initialDelay: 5, maximumDelay: 120)
    /// A number in `0...1` for the backoffs' jitter (``EventStream``'s injected randomness).
    var random: @Sendable () -> Double = { Double.random(in: 0...1) }

    /// Decides the next step.
    /// - Parameters:
    ///   - ending: how the attempt ended.
    ///   - failures: how often in a row the stream has failed to get an open socket, this attempt
    ///     included: 0 when a socket that had opened closed; a drop that was already retried counts as one.
    /// - Returns: the action; every delay is in seconds and positive.
    func decide(_ ending: Ending, failures: Int) -> Action {
        switch ending {
        case .closed(let close) where close.code == Self.replacedCode:
            return .stop(status: .replaced)
        case .refused(httpStatus: 401):
            return .stop(status: .unauthorized)
        case .refused(httpStatus: 429):
            let delay = tooManySocketsBackoff.delay(beforeRetry: max(failures, 1), random: random())
            return .reconnect(after: delay, status: .lost(retryIn: delay))
        case .refused(let status) where (400...499).contains(status) && status != 408:
            // The request itself is wrong (a 422 for a device id the server refuses, a 404 for a wrong path):
            // the same request can never succeed.
            return .stop(status: .refused(httpStatus: status))
        case .closed(let close) where close.code == Self.messageTooBigCode:
            let delay = reconnectBackoff.delay(beforeRetry: failures + 1, random: random())
            return .reconnect(after: delay, status: .messageTooBig(retryIn: delay))
        case .closed, .refused, .failed:
            let delay = reconnectBackoff.delay(beforeRetry: failures + 1, random: random())
            return .reconnect(after: delay, status: .lost(retryIn: delay))
        }
    }
}
