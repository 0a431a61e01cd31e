public import Foundation
import JWT

/// A throw-away service-account JSON file in Google's format (Google: "Creating and managing service
/// account keys"), with a fresh RSA 2048 key, whose `token_uri` points at an FCM sandbox: what `ringer-lab keys`
/// writes, and what tests hand to google-auth, firebase-admin and Ringer's FCM client.
public enum FCMSandboxServiceAccountFile {
    /// Makes the file's contents.
    /// - Parameters:
    ///   - projectID: `project_id`, e.g. `ringer-dev`.
    ///   - clientEmail: `client_email`; nil for `ringer-sandbox@<project>.iam.gserviceaccount.com`.
    ///   - keyID: `private_key_id`; nil for 40 random hex digits, as Google's are.
    ///   - tokenURI: `token_uri`, e.g. `https://localhost:2199/token` (the sandbox's HTTP/1.1 port).
    /// - Returns: the JSON (pretty-printed, keys sorted). It holds a private key: write it mode 0600.
    /// - Throws: `JWTError` when the key cannot be generated.
    public static func make(
        projectID: String, clientEmail: String? = nil, keyID: String? = nil,
        tokenURI: String
    ) throws -> Data {
        let key = try JWTSigningKey.generateRSA(bits: 2048)
        let email = clientEmail ?? "ringer-sandbox@\(projectID).iam.gserviceaccount.com"
        let id = keyID ?? (0..<20).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max)) }.joined()
        let clientID = String(UInt64.random(in: 100_000_000_000_000_000...999_999_999_999_999_999))
        let object: [String: String] = [
            "type": "service_account",
            "project_id": projectID,
            "private_key_id": id,
            "private_key": try key.pkcs8PEM(),
            "client_email": email,
            "client_id": clientID,
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": tokenURI,
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "client_x509_cert_url": "https://www.googleapis.com/robot/v1/metadata/x509/"
                + email.replacingOccurrences(of: "@", with: "%40"),
            "universe_domain": "googleapis.com",
        ]
        return try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
