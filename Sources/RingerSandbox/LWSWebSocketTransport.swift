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

    public func connect(url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
                        onClose: @escaping @Sendable () -> Void) async throws -> any WebSocketChannel {
        let client = try await WebSocketClient.connect(url: url.absoluteString, headers: headers, caFile: caFile,
                                                       onText: onText, onClose: { _, _ in onClose() })
        return Channel(client: client)
    }

    private struct Channel: WebSocketChannel {
        let client: WebSocketClient
        func close() { client.close() }
    }
}
