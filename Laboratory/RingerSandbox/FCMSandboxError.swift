/// Why the FCM sandbox cannot use something it was given (a service account, a key). The detail names the
/// setting or field to fix and never holds key material or tokens.
///
/// Compare against the static members (`error == .invalidServiceAccount`); equality looks only at the kind.
public struct FCMSandboxError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidServiceAccount, invalidKey
    }

    private let code: Code
    /// What is wrong, for the operator; never secrets.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A service-account description that is not JSON, is not of `"type": "service_account"`, or lacks a field.
    public static let invalidServiceAccount = FCMSandboxError(.invalidServiceAccount, "")
    /// A key that does not parse as an RSA key (PEM `PUBLIC KEY` or PKCS#8 `PRIVATE KEY`).
    public static let invalidKey = FCMSandboxError(.invalidKey, "")

    static func invalidServiceAccount(_ detail: String) -> FCMSandboxError {
        FCMSandboxError(.invalidServiceAccount, detail)
    }
    static func invalidKey(_ detail: String) -> FCMSandboxError { FCMSandboxError(.invalidKey, detail) }

    /// Equal when the kinds are; ``detail`` is ignored.
    public static func == (lhs: FCMSandboxError, rhs: FCMSandboxError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, as `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The kind and the detail.
    public var description: String {
        let kind = code == .invalidServiceAccount ? "invalid service account" : "invalid key"
        return detail.isEmpty ? "FCM sandbox: \(kind)" : "FCM sandbox: \(kind): \(detail)"
    }
}
