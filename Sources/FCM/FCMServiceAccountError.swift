/// Why a service-account file cannot be used. The message names the file and what to fix, never the
/// file's content or any part of its private key, so it may be logged and printed at start-up.
///
/// Equality compares the kind (and the field for ``missingField(_:)`` / ``invalidField(_:)``), not the file
/// path or the wording: `#expect(throws: FCMServiceAccountError.missingField("private_key"))`.
public struct FCMServiceAccountError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case unreadableFile, notJSON, notServiceAccount
        case missingField(String)
        case invalidField(String)
        case keyDoesNotParse, notRSAKey, badTokenURI
    }

    private let code: Code
    /// What is wrong, for operators: the file (when known) and the field; never key material.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The file cannot be read (missing, a directory, no permission, absurdly large).
    public static let unreadableFile = FCMServiceAccountError(
        .unreadableFile, "the service-account file cannot be read")
    /// The content is not a JSON object.
    public static let notJSON = FCMServiceAccountError(.notJSON, "the service-account file is not a JSON object")
    /// `type` is not `service_account` (e.g. an `authorized_user` file from `gcloud auth`).
    public static let notServiceAccount = FCMServiceAccountError(.notServiceAccount, "type is not service_account")
    /// `private_key` is not a readable unencrypted PEM private key.
    public static let keyDoesNotParse = FCMServiceAccountError(.keyDoesNotParse, "private_key does not parse")
    /// `private_key` parses but is not RSA (Google signs grants with RS256 only).
    public static let notRSAKey = FCMServiceAccountError(.notRSAKey, "private_key is not an RSA key")
    /// `token_uri` is not `https://` (or `http://` to a loopback host).
    public static let badTokenURI = FCMServiceAccountError(.badTokenURI, "token_uri is not an https URL")

    /// A required field is absent, or not a non-empty string.
    /// - Parameter field: the JSON key, e.g. `client_email`.
    public static func missingField(_ field: String) -> FCMServiceAccountError {
        FCMServiceAccountError(.missingField(field), "missing field \"\(field)\" (a non-empty string)")
    }

    /// A field holds a value Ringer cannot use (e.g. a `project_id` with a `/`).
    /// - Parameter field: the JSON key.
    public static func invalidField(_ field: String) -> FCMServiceAccountError {
        FCMServiceAccountError(.invalidField(field), "field \"\(field)\" has an invalid value")
    }

    /// The same kind with a more precise message, prefixed with the file it came from.
    func at(_ source: String?, _ detail: String? = nil) -> FCMServiceAccountError {
        let text = detail ?? self.detail
        return FCMServiceAccountError(
            code, source.map { "service-account file \($0): \(text)" } ?? "service account: \(text)")
    }

    /// The JSON key to fix, for ``missingField(_:)`` and ``invalidField(_:)`` (`private_key` for the key
    /// errors, `token_uri`, `type`); nil when the file as a whole is unusable.
    public var field: String? {
        switch code {
        case .missingField(let name), .invalidField(let name): name
        case .keyDoesNotParse, .notRSAKey: "private_key"
        case .badTokenURI: "token_uri"
        case .notServiceAccount: "type"
        case .unreadableFile, .notJSON: nil
        }
    }

    /// Equal when the kinds (and fields) are equal; the message is ignored.
    public static func == (lhs: FCMServiceAccountError, rhs: FCMServiceAccountError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// ``detail``: safe to log.
    public var description: String { detail }
}
