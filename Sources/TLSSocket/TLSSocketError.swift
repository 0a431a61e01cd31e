/// A failure of a TCP or TLS socket operation: the call that reported it, its code, and a message for operators.
///
/// Messages name the peer (host and port) and OpenSSL's reasons; never key material or application data.
public struct TLSSocketError: Error, Equatable, CustomStringConvertible {
    /// The C function that reported it (`getaddrinfo`, `connect`, `SSL_do_handshake`, `SSL_read`, `send`, ...).
    public let function: String
    /// That function's code: `errno` for socket calls, the X.509 verification result (`X509_V_ERR_*`) or the
    /// `SSL_get_error` value for TLS, the `getaddrinfo` result; 0 when there is none.
    public let code: Int
    /// What went wrong.
    public let message: String
    /// OpenSSL's reason code (`SSL_R_TLSV1_ALERT_UNKNOWN_CA`, ...) when the peer refused this side's
    /// certificate with a TLS alert (RFC 8446 §6.2); nil for every other failure.
    public let refusedCertificateAlert: Int?

    /// Creates the error.
    /// - Parameters:
    ///   - function: the reporting call.
    ///   - code: its code, or 0.
    ///   - message: for operators.
    ///   - refusedCertificateAlert: set only for a certificate refusal.
    public init(function: String, code: Int, message: String, refusedCertificateAlert: Int? = nil) {
        self.function = function
        self.code = code
        self.message = message
        self.refusedCertificateAlert = refusedCertificateAlert
    }

    /// `function (code): message`.
    public var description: String {
        "\(function) (\(code)): \(message)"
    }
}
