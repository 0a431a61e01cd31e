/// How an open WebSocket ended: the WebSocket Connection Close Code and Reason (RFC 6455 §7.1.5, §7.1.6),
/// as a ``WebSocketTransport`` reports it to `onClose`.
public struct WebSocketClose: Sendable, Equatable, CustomStringConvertible {
    /// The status code (RFC 6455 §7.4): the one in the first close frame received, or the one this side
    /// sent when it closed first; ``abnormal`` (1006) when the connection dropped without a close frame;
    /// 1005 when the close frame had no code.
    public var code: UInt16
    /// The close frame's reason (UTF-8, at most 123 bytes); empty when it had none.
    public var reason: String

    /// Creates a close.
    /// - Parameters:
    ///   - code: the close code (RFC 6455 §7.4).
    ///   - reason: the close frame's reason, or empty.
    public init(code: UInt16, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// 1000: normal closure, e.g. this side called ``WebSocketChannel/close()``.
    public static let normal = WebSocketClose(code: 1000)

    /// 1006: the connection dropped without a close frame (RFC 6455 §7.1.5; never sent on the wire).
    public static let abnormal = WebSocketClose(code: 1006)

    /// `code reason`, for logs.
    public var description: String { reason.isEmpty ? "\(code)" : "\(code) \(reason)" }
}

/// A ``WebSocketTransport/connect(url:headers:onText:onClose:)`` failure in which the server answered the
/// upgrade request with an HTTP status other than 101 (RFC 6455 §4.1), e.g. 401 for a token it does not
/// accept or 429 over its per-user socket cap. Transports throw it when they can read the status; other
/// failures (no answer, TLS, timeout) are thrown as their own errors.
public struct WebSocketUpgradeRefused: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status of the refusal.
    public var status: Int

    /// Creates the error.
    /// - Parameter status: the HTTP status the server answered with.
    public init(status: Int) {
        self.status = status
    }

    /// What failed, for logs.
    public var description: String { "WebSocket upgrade refused with HTTP \(status)" }
}
