/// An error from creating, loading or writing development certificates.
///
/// Compare against the static members (`error == .invalidHost`); equality looks only at the kind.
/// The context never contains key material.
public struct DevCertificateError: Error, CustomStringConvertible, Equatable, Sendable {
    private enum Code: String, Sendable {
        case invalidHost = "invalid host name or address"
        case invalidArgument = "invalid argument"
        case invalidPEM = "unusable PEM input"
        case io = "file error"
        case crypto = "OpenSSL failure"
    }

    private let code: Code

    /// Human-readable context, free of secrets; empty for the static members.
    public let detail: String

    /// The OpenSSL or POSIX function that failed, when there is one.
    public let function: String?

    private init(_ code: Code, detail: String = "", function: String? = nil) {
        self.code = code
        self.detail = detail
        self.function = function
    }

    /// A host is neither an IP address nor a DNS name (RFC 1123 labels, optional leading `*.`).
    public static let invalidHost = DevCertificateError(.invalidHost)
    /// A count or name is out of range (validity days, an empty host list, a long common name).
    public static let invalidArgument = DevCertificateError(.invalidArgument)
    /// A PEM certificate or key could not be read, or they do not belong together.
    public static let invalidPEM = DevCertificateError(.invalidPEM)
    /// Creating a directory or writing a file failed; ``detail`` names the path and the reason.
    public static let io = DevCertificateError(.io)
    /// An OpenSSL call failed; ``function`` names it and ``detail`` holds OpenSSL's reason.
    public static let crypto = DevCertificateError(.crypto)

    static func invalidHost(_ detail: String) -> DevCertificateError {
        DevCertificateError(.invalidHost, detail: detail)
    }
    static func invalidArgument(_ detail: String) -> DevCertificateError {
        DevCertificateError(.invalidArgument, detail: detail)
    }
    static func invalidPEM(_ detail: String) -> DevCertificateError { DevCertificateError(.invalidPEM, detail: detail) }
    static func io(function: String, detail: String) -> DevCertificateError {
        DevCertificateError(.io, detail: detail, function: function)
    }
    /// An OpenSSL failure of `function`, with OpenSSL's reasons (never key material).
    public static func crypto(function: String, detail: String) -> DevCertificateError {
        DevCertificateError(.crypto, detail: detail, function: function)
    }

    /// Two errors are equal when their kinds are equal; ``detail`` and ``function`` are ignored.
    public static func == (lhs: DevCertificateError, rhs: DevCertificateError) -> Bool { lhs.code == rhs.code }

    /// The kind, then the function and the detail when present.
    public var description: String {
        var text = "DevCertificates: \(code.rawValue)"
        if let function { text += " in \(function)" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }
}
