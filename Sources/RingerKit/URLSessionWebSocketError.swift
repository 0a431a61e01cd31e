public import Foundation

/// A WebSocket that ``URLSessionWebSocketTransport`` could not open.
public struct URLSessionWebSocketError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable { case failed, timedOut, closedBeforeOpen, cancelled }

    private let code: Code
    private let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The connection failed (refused, TLS, an upgrade rejected without a readable status, or unsupported
    /// on this platform); a rejected upgrade whose HTTP status is known throws ``WebSocketUpgradeRefused``.
    /// - Parameter detail: the underlying error's description.
    public static func failed(_ detail: String) -> URLSessionWebSocketError {
        URLSessionWebSocketError(.failed, detail)
    }

    /// The server did not accept the upgrade within the open timeout.
    /// - Parameter seconds: the timeout, in seconds.
    public static func timedOut(after seconds: TimeInterval) -> URLSessionWebSocketError {
        URLSessionWebSocketError(.timedOut, "no WebSocket upgrade within \(seconds) s")
    }

    /// The server closed the socket before it opened.
    public static let closedBeforeOpen = URLSessionWebSocketError(.closedBeforeOpen, "closed before it opened")

    /// The connecting task was cancelled.
    public static let cancelled = URLSessionWebSocketError(.cancelled, "cancelled")

    /// True when the failure was the open timeout.
    public var isTimeout: Bool { code == .timedOut }

    /// What failed, for logs (never contains the request's headers).
    public var description: String { "WebSocket: \(detail)" }
}
