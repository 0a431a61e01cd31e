public import Foundation
import LibWebSockets
public import RingerKit

/// RingerKit's ``WebSocketTransport`` over libwebsockets' client role, for simulated phones on Linux
/// (FoundationNetworking's `URLSessionWebSocketTask` does not work with Debian's libcurl).
public struct LWSWebSocketTransport: WebSocketTransport {
    private let caFile: String?

    /// Creates the transport.
    /// - Parameter caFile: extra CA (PEM path) to trust for `wss://` URLs.
    public init(caFile: String? = nil) { self.caFile = caFile }

    /// Opens a WebSocket on the shared libwebsockets client context.
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL with query.
    ///   - headers: request headers (authorization; never logged).
    ///   - onText: each text frame, in order, on the libwebsockets client thread.
    ///   - onClose: once, when the open connection ends, with its close code and reason (RFC 6455 §7.1.5;
    ///     1006 when it dropped without a close frame).
    /// - Returns: the open channel; ``WebSocketChannel/close()`` closes it with status 1000.
    /// - Throws: ``WebSocketUpgradeRefused`` when the server answered the upgrade with an HTTP status other
    ///   than 101; `LibWebSocketsError` for the other connection failures.
    public func connect(
        url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (WebSocketClose) -> Void
    ) async throws -> any WebSocketChannel {
        do {
            let client = try await WebSocketClient.connect(
                url: url.absoluteString, headers: headers, caFile: caFile, onText: onText,
                onClose: { code, reason in onClose(WebSocketClose(code: code, reason: reason)) })
            return Channel(client: client)
        } catch let error as LibWebSocketsError {
            if let status = error.httpStatus { throw WebSocketUpgradeRefused(status: status) }
            throw error
        }
    }

    private struct Channel: WebSocketChannel {
        let client: WebSocketClient
        func close() { client.close() }
    }
}
