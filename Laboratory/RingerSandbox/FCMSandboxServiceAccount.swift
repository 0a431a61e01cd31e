public import Foundation
import JWT

/// A Google service account the FCM sandbox trusts: who may exchange a JWT grant for an access token at
/// its token endpoint, with which key, and for which Firebase projects.
///
/// Made from the account's public key, or from the service-account JSON file itself (Google: "Creating and
/// managing service account keys": `type`, `project_id`, `private_key_id`, `private_key`, `client_email`,
/// `token_uri`), whose private key the sandbox only uses to derive the public half. A plain value.
public struct FCMSandboxServiceAccount: Sendable {
    /// `client_email`: the grant's `iss`.
    public var clientEmail: String
    /// `private_key_id`: the grant's header `kid`.
    public var keyID: String
    /// The projects an access token of this account may send to: its `project_id`, plus any others it was
    /// granted (Google: IAM permission `cloudmessaging.messages.create` on another project).
    public var projectIDs: Set<String>
    /// The file's `token_uri`, accepted as the grant's `aud` besides the sandbox's own token URLs; nil when
    /// not known.
    public var tokenURI: String?
    /// The public key that verifies the grant's RS256 signature.
    let publicKey: JWTVerificationKey

    /// Trusts a key of an account.
    /// - Parameters:
    ///   - clientEmail: The account's email (`iss`).
    ///   - keyID: The key's id (`kid`).
    ///   - publicKeyPEM: The RSA public key (`BEGIN PUBLIC KEY`), or the PKCS#8 private key (`BEGIN PRIVATE KEY`).
    ///   - projectID: The account's project.
    ///   - otherProjectIDs: Further projects it may send to.
    ///   - tokenURI: The `token_uri` its file names, if any.
    /// - Throws: ``FCMSandboxError/invalidKey`` when the PEM is not an RSA key; ``FCMSandboxError/invalidServiceAccount``
    ///   for an empty email, key id or project id.
    public init(
        clientEmail: String, keyID: String, publicKeyPEM: String, projectID: String,
        otherProjectIDs: Set<String> = [], tokenURI: String? = nil
    ) throws {
        guard !clientEmail.isEmpty else { throw FCMSandboxError.invalidServiceAccount("client_email is empty") }
        guard !keyID.isEmpty else { throw FCMSandboxError.invalidServiceAccount("private_key_id is empty") }
        guard !projectID.isEmpty else { throw FCMSandboxError.invalidServiceAccount("project_id is empty") }
        let key: JWTVerificationKey
        do {
            key =
                publicKeyPEM.contains("PRIVATE KEY")
                ? try JWTSigningKey(pem: publicKeyPEM).publicKey()
                : try JWTVerificationKey(publicKeyPEM: publicKeyPEM)
        } catch {
            throw FCMSandboxError.invalidKey("the key of \(clientEmail) does not parse as PEM")
        }
        guard key.algorithm == .rs256 else {
            throw FCMSandboxError.invalidKey(
                "the key of \(clientEmail) is not an RSA key (Google signs grants with RS256)")
        }
        self.clientEmail = clientEmail
        self.keyID = keyID
        self.projectIDs = otherProjectIDs.union([projectID])
        self.tokenURI = tokenURI
        publicKey = key
    }

    /// Trusts the account of a service-account JSON file.
    /// - Parameter data: The file's bytes.
    /// - Throws: ``FCMSandboxError/invalidServiceAccount`` naming the missing or wrong field;
    ///   ``FCMSandboxError/invalidKey`` when `private_key` is not an RSA PKCS#8 PEM.
    public init(serviceAccountJSON data: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FCMSandboxError.invalidServiceAccount("the file is not a JSON object")
        }
        func field(_ name: String) throws -> String {
            guard let value = object[name] as? String, !value.isEmpty else {
                throw FCMSandboxError.invalidServiceAccount("\"\(name)\" is missing or not a string")
            }
            return value
        }
        guard object["type"] as? String == "service_account" else {
            throw FCMSandboxError.invalidServiceAccount("\"type\" is not \"service_account\"")
        }
        try self.init(
            clientEmail: try field("client_email"), keyID: try field("private_key_id"),
            publicKeyPEM: try field("private_key"), projectID: try field("project_id"),
            tokenURI: object["token_uri"] as? String)
    }
}
