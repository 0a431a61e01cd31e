/// An error from signing, verifying or validating a JSON Web Token.
///
/// Compare against the static members (`error == .invalidSignature`); equality looks only at the kind,
/// never at the context. The context (``detail`` and the OpenSSL ``function``) never contains key
/// material or token text, so an error may be logged.
public struct JWTError: Error, CustomStringConvertible, Equatable, Sendable {
    private enum Code: String, Sendable {
        case malformed = "malformed token"
        case unsupportedAlgorithm = "unsupported algorithm"
        case algorithmMismatch = "algorithm not allowed for this key"
        case invalidSignature = "invalid signature"
        case invalidKey = "invalid key"
        case expired = "token expired"
        case notYetValid = "token not yet valid"
        case issuedTooLongAgo = "token issued too long ago"
        case missingClaim = "required claim missing"
        case encoding = "cannot encode token"
        case crypto = "OpenSSL failure"
    }

    private let code: Code

    /// Human-readable context, free of secrets; empty for the static members.
    public let detail: String

    /// The OpenSSL function that failed, for ``crypto`` errors; `nil` otherwise.
    public let function: String?

    private init(_ code: Code, detail: String = "", function: String? = nil) {
        self.code = code
        self.detail = detail
        self.function = function
    }

    /// The token is not three base64url parts of JSON objects (RFC 7515 §7.1, RFC 7519 §7.2).
    public static let malformed = JWTError(.malformed)
    /// The header names an algorithm this library does not implement (including `none`).
    public static let unsupportedAlgorithm = JWTError(.unsupportedAlgorithm)
    /// The header's algorithm is not in the caller's allowed set, or does not match the key's type.
    public static let algorithmMismatch = JWTError(.algorithmMismatch)
    /// The signature does not verify with the given key.
    public static let invalidSignature = JWTError(.invalidSignature)
    /// The key could not be read or is unfit for its algorithm (wrong curve, RSA below 2048 bits, empty secret).
    public static let invalidKey = JWTError(.invalidKey)
    /// The `exp` claim is in the past (RFC 7519 §4.1.4).
    public static let expired = JWTError(.expired)
    /// The `nbf` or `iat` claim is in the future (RFC 7519 §4.1.5, §4.1.6).
    public static let notYetValid = JWTError(.notYetValid)
    /// The `iat` claim is older than the caller's maximum age (APNs: one hour).
    public static let issuedTooLongAgo = JWTError(.issuedTooLongAgo)
    /// A claim the caller requires is absent.
    public static let missingClaim = JWTError(.missingClaim)
    /// The header or claims could not be encoded as a JSON object.
    public static let encoding = JWTError(.encoding)
    /// An OpenSSL call failed unexpectedly; ``function`` names it and ``detail`` holds OpenSSL's reason.
    public static let crypto = JWTError(.crypto)

    static func malformed(_ detail: String) -> JWTError { JWTError(.malformed, detail: detail) }
    static func unsupportedAlgorithm(_ detail: String) -> JWTError { JWTError(.unsupportedAlgorithm, detail: detail) }
    static func algorithmMismatch(_ detail: String) -> JWTError { JWTError(.algorithmMismatch, detail: detail) }
    static func invalidKey(_ detail: String) -> JWTError { JWTError(.invalidKey, detail: detail) }
    static func expired(_ detail: String) -> JWTError { JWTError(.expired, detail: detail) }
    static func notYetValid(_ detail: String) -> JWTError { JWTError(.notYetValid, detail: detail) }
    static func issuedTooLongAgo(_ detail: String) -> JWTError { JWTError(.issuedTooLongAgo, detail: detail) }
    static func missingClaim(_ name: String) -> JWTError { JWTError(.missingClaim, detail: "claim \"\(name)\"") }
    static func encoding(_ detail: String) -> JWTError { JWTError(.encoding, detail: detail) }
    /// An OpenSSL failure of `function`, with OpenSSL's reasons (never key material).
    public static func crypto(function: String, detail: String) -> JWTError {
        JWTError(.crypto, detail: detail, function: function)
    }

    /// Two errors are equal when their kinds are equal; ``detail`` and ``function`` are ignored.
    public static func == (lhs: JWTError, rhs: JWTError) -> Bool { lhs.code == rhs.code }

    /// The kind, then the OpenSSL function and the detail when present.
    public var description: String {
        var text = "JWT: \(code.rawValue)"
        if let function { text += " in \(function)" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }
}
