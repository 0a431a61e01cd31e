import Foundation
import RingerSupport

/// A WebSocket client connection (`ws://` or `wss://`) on libwebsockets' client role, for Linux
/// where `URLSessionWebSocketTask` is unavailable.
///
/// All clients of the process share one lws context and one service thread, created on the
/// first ``connect(url:headers:caFile:onText:onClose:)``. Callbacks run on that thread, in
/// order, and must return quickly.
///
/// ```swift
/// let client = try await WebSocketClient.connect(url: "ws://127.0.0.1:8080/v1/events?since=0",
///                                                headers: ["authorization": "Bearer \(token)"],
///                                                onText: { print($0) })
/// client.send(text: "hello")
/// client.close()
/// ```
///
/// Thread-safety: `send(text:)` and `close()` may be called from any thread or task. An open
/// connection lives until it closes; call ``close()`` when done.
public final class WebSocketClient: Sendable {
    /// Largest incoming message, in bytes; a larger one closes the connection with 1009.
    static let maxMessageBytes = 16 << 20

    private enum ConnectState {
        case connecting
        case waiting(CheckedContinuation<Void, any Error>)
        case finished(Result<Void, any Error>)
        case resumed
    }

    /// A process-unique id.
    public let id: UInt64
    let outbox: WebSocketOutbox
    private let onText: @Sendable (String) -> Void
    private let onClose: @Sendable (_ code: UInt16, _ reason: String) -> Void
    private let connectState = LockedValue(ConnectState.connecting)
    private static let lastID = LockedValue<UInt64>(0)

    private init(
        engine: ClientEngine, onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (_ code: UInt16, _ reason: String) -> Void
    ) {
        let id = Self.lastID.withLock { last in
            last += 1
            return last
        }
        self.id = id
        self.onText = onText
        self.onClose = onClose
        outbox = WebSocketOutbox(wake: { engine.mailbox.post(.writable(id: id)) })
    }

    /// Opens a connection and completes the WebSocket handshake (RFC 6455 §4.1).
    /// - Parameters:
    ///   - url: `ws://` or `wss://` URL with host, optional port, path and query.
    ///   - headers: Extra handshake request headers, e.g. `authorization`.
    ///   - caFile: PEM file of CAs to trust for `wss://`; `nil` uses the system store. The server
    ///     name is verified against the certificate (SAN) either way.
    ///   - onText: Called with each complete text message, on the client service thread.
    ///   - onClose: Called once when an open connection closes, on the client service thread, with the
    ///     close code and reason (RFC 6455 §7.1.5, §7.1.6): the server's close frame; 1005 when its frame
    ///     had no code; the code this client sent when it closed first (1000 for ``close()``, 1009 for a
    ///     message over 16 MiB); 1006 when the connection dropped without a close frame.
    /// - Returns: The open connection.
    /// - Throws: ``LibWebSocketsError/invalidURL`` for a malformed URL,
    ///   ``LibWebSocketsError/connectFailed`` when the TCP connect, TLS or handshake fails (a
    ///   refused port fails at once; an unanswered one after about 10 seconds; a refused upgrade
    ///   carries the server's status in ``LibWebSocketsError/httpStatus``), or
    ///   `CancellationError` when the task is cancelled.
    public static func connect(
        url: String, headers: [String: String] = [:], caFile: String? = nil,
        onText: @escaping @Sendable (String) -> Void,
        onClose: @escaping @Sendable (_ code: UInt16, _ reason: String) -> Void = { _, _ in }
    )
        async throws -> WebSocketClient
    {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", let host = components.host, !host.isEmpty
        else {
            throw LibWebSocketsError.invalidURL.with(
                function: "WebSocketClient.connect",
                detail: "expected ws:// or wss:// with a host")
        }
        let useTLS = scheme == "wss"
        let port = components.port ?? (useTLS ? 443 : 80)
        guard (1...65535).contains(port) else {
            throw LibWebSocketsError.invalidURL.with(function: "WebSocketClient.connect", detail: "bad port")
        }
        let engine = try ClientEngine.running()
        let client = WebSocketClient(engine: engine, onText: onText, onClose: onClose)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let hostForHeader = host.contains(":") ? "[\(host)]" : host
        let request = ClientConnectRequest(
            client: client, address: host, port: port,
            pathAndQuery: path + (components.percentEncodedQuery.map { "?" + $0 } ?? ""),
            hostHeader: components.port == nil ? hostForHeader : "\(hostForHeader):\(port)",
            useTLS: useTLS, caFile: caFile,
            headers: headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                client.wait(with: continuation)
                if !engine.mailbox.post(.connect(request)) {
                    client.finishConnecting(
                        .failure(
                            LibWebSocketsError.shutDown.with(
                                function: "WebSocketClient.connect", detail: "client service loop is gone")))
                }
            }
        } onCancel: {
            client.finishConnecting(.failure(CancellationError()))
            client.outbox.requestClose()
        }
        return client
    }

    /// Queues a text message; messages go out in the order queued. Does nothing once closing.
    /// - Parameter text: The message.
    public func send(text: String) {
        outbox.enqueue(Array(text.utf8))
    }

    /// Starts a normal close (status 1000) after the queued messages; `onClose` follows.
    public func close() {
        outbox.requestClose()
    }

    /// Whether the connection is neither closing nor closed.
    public var isOpen: Bool {
        outbox.isOpen
    }

    /// Parks the connecting task, unless the outcome is already known.
    private func wait(with continuation: CheckedContinuation<Void, any Error>) {
        let early: Result<Void, any Error>? = connectState.withLock { state in
            guard case .finished(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .resumed
            return result
        }
        if let early { continuation.resume(with: early) }
    }

    /// Resolves the connect call once; later calls are ignored.
    func finishConnecting(_ result: Result<Void, any Error>) {
        let continuation: CheckedContinuation<Void, any Error>? = connectState.withLock { state in
            switch state {
            case .connecting:
                state = .finished(result)
                return nil
            case .waiting(let continuation):
                state = .resumed
                return continuation
            case .finished, .resumed:
                return nil
            }
        }
        continuation?.resume(with: result)
    }

    /// Hands a complete text message to `onText`.
    func deliver(text: String) {
        onText(text)
    }

    /// Reports the close once.
    func didClose(code: UInt16, reason: String) {
        if outbox.markClosed() { onClose(code, reason) }
    }
}
