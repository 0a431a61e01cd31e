/// An error from the libwebsockets wrapper: what failed, and where.
///
/// Compare with the static members (`error == .connectFailed`; equality ignores the context),
/// or read ``function`` and ``detail``. Messages never contain header values or tokens.
public struct LibWebSocketsError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case contextCreationFailed
        case alreadyStarted
        case invalidConfiguration
        case invalidURL
        case connectFailed
        case shutDown
    }

    private let code: Code
    /// The C function (or Swift step) that failed, e.g. `"lws_create_context"`.
    public let function: String
    /// What lws or the wrapper said, e.g. `"conn fail: ECONNREFUSED"`.
    public let detail: String
    /// The HTTP status of a WebSocket upgrade the server refused (anything but 101, RFC 6455 §4.1),
    /// e.g. 401 or 429; nil when no response arrived or for other errors.
    public let httpStatus: Int?

    private init(_ code: Code, function: String, detail: String, httpStatus: Int? = nil) {
        self.code = code
        self.function = function
        self.detail = detail
        self.httpStatus = httpStatus
    }

    /// `lws_create_context` failed: a port already in use, an unreadable certificate or key…
    public static let contextCreationFailed = LibWebSocketsError(.contextCreationFailed, function: "", detail: "")
    /// ``WebServer/start()`` was called twice.
    public static let alreadyStarted = LibWebSocketsError(.alreadyStarted, function: "", detail: "")
    /// A configuration value is out of range.
    public static let invalidConfiguration = LibWebSocketsError(.invalidConfiguration, function: "", detail: "")
    /// A WebSocket URL is not `ws://` or `wss://` with a host.
    public static let invalidURL = LibWebSocketsError(.invalidURL, function: "", detail: "")
    /// A WebSocket client connection or handshake failed.
    public static let connectFailed = LibWebSocketsError(.connectFailed, function: "", detail: "")
    /// The service loop is gone (server shut down).
    public static let shutDown = LibWebSocketsError(.shutDown, function: "", detail: "")

    /// Same kind of error with context attached.
    func with(function: String, detail: String, httpStatus: Int? = nil) -> LibWebSocketsError {
        LibWebSocketsError(code, function: function, detail: detail, httpStatus: httpStatus)
    }

    /// Errors of the same kind are equal whatever their context.
    public static func == (lhs: LibWebSocketsError, rhs: LibWebSocketsError) -> Bool {
        lhs.code == rhs.code
    }

    /// A one-line description: kind, function, detail.
    public var description: String {
        var text = "LibWebSocketsError.\(code)"
        if !function.isEmpty { text += " in \(function)" }
        if !detail.isEmpty { text += ": \(detail)" }
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        return text
    }
}
