/// An error thrown by ``HTTP2Client/send(_:)`` and ``HTTP2Client/init(configuration:)``.
///
/// Compare with the static members (`error == .timedOut`, `error == .shutDown`); transport failures and
/// invalid requests carry detail, so test them with ``isTransport`` and ``isInvalidRequest``.
/// Task cancellation is reported as `CancellationError`, not as this type.
/// Messages never contain request header values (they carry bearer tokens) or key passwords.
public struct HTTP2ClientError: Error, Equatable, CustomStringConvertible {
    private enum Code: Equatable {
        case timedOut
        case shutDown
        case transport(function: String, code: Int, message: String)
        case invalidRequest(reason: String)
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The request's deadline (``HTTP2Request/timeout``) passed before the response was complete.
    public static let timedOut = HTTP2ClientError(.timedOut)

    /// The client was shut down before or while the request was in flight.
    public static let shutDown = HTTP2ClientError(.shutDown)

    /// The connection or stream failed: name resolution, connect refused, TLS handshake or certificate
    /// failure, connection lost, stream reset, ...
    /// - Parameters:
    ///   - function: What reported it: the C function (`connect`, `SSL_do_handshake`, `SSL_read`,
    ///     `getaddrinfo`, an `nghttp2_*` call) or the HTTP/2 frame (`RST_STREAM`, `PING`).
    ///   - code: That function's code: `errno` for socket calls, the X.509 verification result
    ///     (`X509_V_ERR_*`) or `SSL_get_error` value for TLS, the HTTP/2 error code (RFC 9113 §7) for
    ///     `RST_STREAM`, the nghttp2 error for `nghttp2_*`; 0 when there is none.
    ///   - message: What went wrong, for operators.
    /// - Returns: The error value.
    public static func transport(function: String, code: Int, message: String) -> HTTP2ClientError {
        HTTP2ClientError(.transport(function: function, code: code, message: message))
    }

    /// The server refused the client certificate with a TLS alert (`unknown_ca`, `bad_certificate`,
    /// `certificate_expired`, `certificate_required`, …; RFC 8446 §6.2): a set-up problem, not a network one,
    /// so sending again cannot help. A transport error whose ``transportFunction`` is `TLS alert`.
    /// - Parameters:
    ///   - alert: OpenSSL's reason code for the alert (`SSL_R_TLSV1_ALERT_UNKNOWN_CA`, …).
    ///   - message: What the server said, for operators.
    /// - Returns: The error value.
    public static func certificateRefused(alert: Int, message: String) -> HTTP2ClientError {
        HTTP2ClientError(.transport(function: "TLS alert", code: alert, message: message))
    }

    /// True for ``certificateRefused(alert:message:)``.
    public var isCertificateRefused: Bool {
        if case .transport("TLS alert", _, _) = code { return true }
        return false
    }

    /// The request or configuration cannot be sent as given (bad URL, header, method or timeout).
    /// - Parameter reason: What is wrong; must not quote secret values.
    /// - Returns: The error value.
    public static func invalidRequest(_ reason: String) -> HTTP2ClientError {
        HTTP2ClientError(.invalidRequest(reason: reason))
    }

    /// True for ``transport(function:code:message:)`` errors.
    public var isTransport: Bool {
        if case .transport = code { return true }
        return false
    }

    /// True for ``invalidRequest(_:)`` errors.
    public var isInvalidRequest: Bool {
        if case .invalidRequest = code { return true }
        return false
    }

    /// What reported a transport error (`connect`, `SSL_do_handshake`, `RST_STREAM`, ...), else nil.
    public var transportFunction: String? {
        if case .transport(let function, _, _) = code { return function }
        return nil
    }

    /// What a transport error says went wrong, else nil.
    public var transportMessage: String? {
        if case .transport(_, _, let message) = code { return message }
        return nil
    }

    /// The code of a transport error (see ``transport(function:code:message:)``), else nil.
    public var transportCode: Int? {
        if case .transport(_, let value, _) = code { return value }
        return nil
    }

    /// A one-line human-readable explanation.
    public var description: String {
        switch code {
        case .timedOut:
            return "HTTP2Client: request timed out before its deadline"
        case .shutDown:
            return "HTTP2Client: client is shut down"
        case .transport(let function, let value, let message):
            return "HTTP2Client: \(function) failed with code \(value): \(message)"
        case .invalidRequest(let reason):
            return "HTTP2Client: invalid request: \(reason)"
        }
    }
}
