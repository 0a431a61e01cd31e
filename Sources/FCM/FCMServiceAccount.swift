public import Foundation
public import JWT

/// A Google service account that may send FCM messages: the standard JSON key file from the Firebase
/// console ("Project settings → Service accounts → Generate new private key") or Google Cloud IAM.
///
/// Only the fields the OAuth2 JWT grant needs are read (Google: "Using OAuth 2.0 for Server to Server
/// Applications"): `type` (must be `service_account`), `project_id` (the `{project}` of
/// `messages:send`), `private_key_id` (the grant's `kid`), `private_key` (PEM RSA, PKCS#8 as Google writes
/// it; PKCS#1 is read too), `client_email` (the grant's `iss`) and `token_uri` (its `aud`, and where it is
/// posted). Other fields (`client_id`, `auth_uri`, ...) are ignored. Parsing never echoes the file's
/// content: errors name the field to fix (``FCMServiceAccountError``).
///
/// An immutable value; thread-safe. Its ``description`` shows the project and e-mail, never the key.
public struct FCMServiceAccount: Sendable, CustomStringConvertible {
    /// The Firebase (Google Cloud) project id, e.g. `ringer-demo-1a2b3`.
    public let projectID: String
    /// The id of ``key`` at Google (40 hex digits in Google's files), sent as the grant's `kid`.
    public let privateKeyID: String
    /// The account's e-mail, e.g. `firebase-adminsdk-x@<project>.iam.gserviceaccount.com`: the grant's `iss`.
    public let clientEmail: String
    /// The OAuth2 token endpoint, normally `https://oauth2.googleapis.com/token`: where the grant is posted,
    /// and its `aud`. `http://` only to a loopback host (a local sandbox).
    public let tokenURI: String
    /// The RS256 signing key of the grant. Secret: never print or log it.
    public let key: JWTSigningKey
    /// Where the account was read from (a file path), for messages; nil when built from bytes.
    public let source: String?

    /// Largest file read, in bytes; Google's files are about 2.3 KB.
    static let maximumFileBytes = 1 << 20

    /// Creates an account from its parts (a sandbox's throw-away account, tests).
    /// - Throws: ``FCMServiceAccountError`` as ``init(json:source:)`` for an empty field, a bad project id,
    ///   a key that is not RSA or a bad token URI.
    public init(
        projectID: String, privateKeyID: String, clientEmail: String, tokenURI: String,
        key: JWTSigningKey, source: String? = nil
    ) throws(FCMServiceAccountError) {
        for (name, value) in [
            ("project_id", projectID), ("private_key_id", privateKeyID),
            ("client_email", clientEmail), ("token_uri", tokenURI),
        ] where value.isEmpty {
            throw FCMServiceAccountError.missingField(name).at(source)
        }
        guard Self.isUsableProjectID(projectID) else {
            throw FCMServiceAccountError.invalidField("project_id")
                .at(source, "project_id is not a project id (letters, digits, '-', '.', ':', '_'; at most 128)")
        }
        guard key.algorithm == .rs256 else {
            throw FCMServiceAccountError.notRSAKey.at(source, "private_key is not an RSA key; Google grants are RS256")
        }
        if let problem = LoopbackHost.problem(withURL: tokenURI) {
            throw FCMServiceAccountError.badTokenURI.at(source, "token_uri \(problem)")
        }
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.key = key
        self.source = source
    }

    /// Parses a service-account JSON document.
    /// - Parameters:
    ///   - json: the file's bytes.
    ///   - source: where they came from (a path), quoted in errors; nil for none.
    /// - Throws: ``FCMServiceAccountError``: `notJSON`, `notServiceAccount`, `missingField(_:)`,
    ///   `invalidField(_:)`, `keyDoesNotParse`, `notRSAKey`, `badTokenURI`.
    public init(json: Data, source: String? = nil) throws(FCMServiceAccountError) {
        guard let parsed = try? JSONSerialization.jsonObject(with: json), let object = parsed as? [String: Any] else {
            throw FCMServiceAccountError.notJSON.at(source)
        }
        func string(_ name: String) throws(FCMServiceAccountError) -> String {
            guard let value = object[name] as? String, !value.isEmpty else {
                throw FCMServiceAccountError.missingField(name).at(source)
            }
            return value
        }
        guard try string("type") == "service_account" else {
            throw FCMServiceAccountError.notServiceAccount
                .at(source, "type is not \"service_account\"; download a service-account key, not user credentials")
        }
        let projectID = try string("project_id")
        let privateKeyID = try string("private_key_id")
        let pem = try string("private_key")
        let clientEmail = try string("client_email")
        let tokenURI = try string("token_uri")
        let key: JWTSigningKey
        do {
            key = try JWTSigningKey(pem: pem)
        } catch {
            // OpenSSL's reason is left out on purpose: the key is the one thing never to come near a message.
            throw FCMServiceAccountError.keyDoesNotParse
                .at(source, "private_key is not an unencrypted PEM private key (PKCS#8 RSA, as Google writes it)")
        }
        try self.init(
            projectID: projectID, privateKeyID: privateKeyID, clientEmail: clientEmail, tokenURI: tokenURI,
            key: key, source: source)
    }

    /// Reads and parses a service-account file (`--fcm-service-account FILE`).
    /// - Parameter path: the file's path.
    /// - Throws: ``FCMServiceAccountError/unreadableFile`` when it cannot be read or exceeds 1 MiB; otherwise
    ///   what ``init(json:source:)`` throws, naming `path`.
    public init(contentsOfFile path: String) throws(FCMServiceAccountError) {
        let url = URL(fileURLWithPath: path)
        let size = (try? url.resourceValues(forKeys: [.fileSizeKey, .isDirectoryKey]))
        guard size?.isDirectory != true, (size?.fileSize ?? 0) <= Self.maximumFileBytes,
            let data = try? Data(contentsOf: url)
        else {
            throw FCMServiceAccountError.unreadableFile
                .at(path, "cannot be read (missing, a directory, not permitted, or over 1 MiB)")
        }
        try self.init(json: data, source: path)
    }

    /// `service account <client_email> of project <project_id> (key <private_key_id>)`; never the key itself.
    public var description: String {
        "service account \(clientEmail) of project \(projectID) (key \(privateKeyID))"
    }

    /// A project id fit for the path `/v1/projects/{project}/messages:send`: Google's ids are lowercase
    /// letters, digits and `-` (6…30), older domain-scoped ones add `.` and `:`; nothing that could end or
    /// escape the path segment. The server applies the same rule to a device's `fcm_project_id`.
    /// - Parameter id: the candidate.
    /// - Returns: true when it is usable.
    public static func isUsableProjectID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"),
                    UInt8(ascii: "_"):
                    true
                default:
                    false
                }
            }
    }
}
