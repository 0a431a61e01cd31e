public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``WebSocketTransport`` over Foundation's `URLSessionWebSocketTask`: the event stream's transport on
/// Apple platforms (the default of `RingerPhone`).
///
/// ``connect(url:headers:onText:onClose:)`` returns only once the server accepted the upgrade (Apple:
/// `URLSessionWebSocketDelegate.urlSession(_:webSocketTask:didOpenWithProtocol:)`) and throws when the
/// connection fails or does not open within ``openTimeout``. Text frames are delivered in order, one
/// receive at a time; binary frames are skipped (Ringer's events are text). `onClose` is called exactly
/// once for a connection that opened, whoever closed it, with the code of the server's close frame
/// (`urlSession(_:webSocketTask:didCloseWith:reason:)`), 1000 after ``WebSocketChannel/close()``, or 1006
/// when it dropped without one; never for one that failed to open. A refused upgrade throws
/// ``WebSocketUpgradeRefused`` with the status of the task's HTTP response.
///
/// Apple platforms only in practice: on Linux, swift-corelibs-foundation implements WebSocket tasks on
/// libcurl, and Debian's libcurl has no WebSocket support, so every connection fails at once (use
/// libwebsockets there, as the simulator does). Thread-safe.
public struct URLSessionWebSocketTransport: WebSocketTransport {
    /// Seconds to wait for the upgrade before ``connect(url:headers:onText:onClose:)`` throws.
    public let openTimeout: TimeInterval

    /// Creates the transport.
    /// - Parameter openTimeout: seconds to wait for the server to accept the connection.
    public init(openTimeout: TimeInterval = 15) {
        self.openTimeout = openTimeout
    }

    /// Opens a WebSocket with a session of its own (`URLSessionConfiguration.default`), whose delegate
    /// tells when the socket opened.
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL with query.
    ///   - headers: request headers (authorization; never logged).
    ///   - onText: each text frame, in order.
    ///   - onClose: once, when the open connection ends for any reason, with its close code and reason.
    /// - Returns: the open channel; ``WebSocketChannel/close()`` closes it with status 1000.
    /// - Throws: ``WebSocketUpgradeRefused`` when the server answered the upgrade with another status than
    ///   101; ``URLSessionWebSocketError`` when the connection fails, times out or the task is cancelled.
    public func connect(
        url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (WebSocketClose) -> Void
    ) async throws -> any WebSocketChannel {
        let connection = URLSessionWebSocketConnection(onText: onText, onClose: onClose)
        try await connection.open(url: url, headers: headers, timeout: openTimeout)
        return connection
    }
}
