import DevCertificates
import Foundation
import JWT
import RingerSandbox
import RingerWire

/// The throw-away material one benchmark run needs, in a private temporary folder: a dev CA and a
/// localhost server certificate for the sandbox, an APNs signing key (`.p8`) with its key id and team id,
/// one device token registered with the sandbox, and the VoIP payload every sender sends; for FCM, a
/// service account (Google's JSON format, a fresh RSA key), one registration token, and the `ringer` data
/// value of the ringing message.
struct BenchmarkFixture: Sendable {
    /// The signing key's id (`kid`): 10 characters, as Apple issues them.
    static let keyID = "BENCHKEY01"
    /// The team id (`iss`): 10 characters.
    static let teamID = "BENCHTEAM1"
    /// The app the device token belongs to.
    static let bundleID = "dev.ringer.bench"
    /// The Firebase project of the service account and the registration token.
    static let fcmProjectID = "ringer-bench"

    let directory: URL
    let certificates: DevCertificatePaths
    let keyFile: URL
    let signingKey: JWTSigningKey
    /// 32 random bytes as lowercase hex, like an iPhone's PushKit token.
    let deviceToken: String
    let payloadFile: URL
    let payload: [UInt8]
    /// The service-account JSON the sandbox trusts (its `token_uri` is rewritten per sender by
    /// ``fcmServiceAccount(tokenURI:name:)`` once the sandbox's ports are known).
    let fcmServiceAccountFile: URL
    /// A registration token shaped like FCM's (`<instance id>:APA91b<base64url>`, 163 characters).
    let fcmToken: String
    /// The ringing message's `data.ringer` value: the `VoIPPush` body as a JSON string, as `FCMPushSender`
    /// builds it (written to ``fcmRingerFile`` for the senders).
    let fcmRinger: String
    let fcmRingerFile: URL
    /// The ringing message's `android.collapse_key`: the call id.
    let fcmCollapseKey: String

    /// `<bundle id>.voip`, the topic of a VoIP push.
    var topic: String { Self.bundleID + ".voip" }

    /// Makes everything in a new folder under the system temporary directory.
    /// - Returns: the fixture; call ``remove()`` when done.
    /// - Throws: ``BenchmarkError/setup(_:)`` when a key, certificate or file cannot be made.
    static func create() throws -> BenchmarkFixture {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ringer-bench-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        do {
            let certificates = try DevCertificateAuthority.create().write(to: directory)
            let signingKey = try JWTSigningKey.generateP256()
            let keyFile = directory.appendingPathComponent("AuthKey_\(keyID).p8")
            try Data(try signingKey.pkcs8PEM().utf8).write(to: keyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            var random = SystemRandomNumberGenerator()
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
            let payload = Array(try Self.ringingPayload())
            let payloadFile = directory.appendingPathComponent("payload.json")
            try Data(payload).write(to: payloadFile)
            // The sandbox reads the account's key and email; senders get copies naming its real token URL.
            let serviceAccountFile = directory.appendingPathComponent("fcm-service-account.json")
            try Self.writeSecret(
                try FCMSandboxServiceAccountFile.make(
                    projectID: fcmProjectID,
                    tokenURI: "https://localhost/token"),
                to: serviceAccountFile)
            let base64URL = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            func randomText(_ count: Int) -> String {
                String((0..<count).map { _ in base64URL[Int.random(in: 0..<64, using: &random)] })
            }
            let fcmToken = randomText(22) + ":APA91b" + randomText(134)
            let callID = UUID().uuidString.lowercased()
            let ringer = String(decoding: try Self.fcmRingerBody(callID: callID), as: UTF8.self)
            let ringerFile = directory.appendingPathComponent("fcm-ringer.json")
            try Data(ringer.utf8).write(to: ringerFile)
            return BenchmarkFixture(
                directory: directory, certificates: certificates, keyFile: keyFile,
                signingKey: signingKey, deviceToken: token, payloadFile: payloadFile, payload: payload,
                fcmServiceAccountFile: serviceAccountFile, fcmToken: fcmToken, fcmRinger: ringer,
                fcmRingerFile: ringerFile, fcmCollapseKey: callID)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw BenchmarkError.setup("cannot make keys and files in \(directory.path): \(error)")
        }
    }

    /// A provider token for tools that cannot sign one (h2load): ES256, `kid`, `iss`, `iat` = now.
    /// - Returns: the compact JWT. It is a secret of a throw-away key; callers must not log it.
    /// - Throws: `JWTError` when signing fails.
    func providerToken() throws -> String {
        struct Claims: Encodable {
            var iss: String
            var iat: Int64
        }
        return try JWT.sign(
            Claims(iss: Self.teamID, iat: Int64(Date().timeIntervalSince1970)), keyID: Self.keyID,
            type: nil, with: signingKey)
    }

    /// A copy of the service-account file whose `token_uri` is `tokenURI` (the sandbox's token endpoint on
    /// the port that sender's library speaks to), mode 0600.
    /// - Parameters:
    ///   - tokenURI: e.g. `https://127.0.0.1:40123/token`.
    ///   - name: file name stem, e.g. `http2`.
    /// - Returns: the new file.
    /// - Throws: ``BenchmarkError/setup(_:)`` when the file cannot be read or written.
    func fcmServiceAccount(tokenURI: String, name: String) throws -> URL {
        let file = directory.appendingPathComponent("fcm-service-account-\(name).json")
        do {
            guard
                var object = try JSONSerialization.jsonObject(with: Data(contentsOf: fcmServiceAccountFile))
                    as? [String: Any]
            else { throw CocoaError(.propertyListReadCorrupt) }
            object["token_uri"] = tokenURI
            try Self.writeSecret(
                try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
                to: file)
        } catch {
            throw BenchmarkError.setup("cannot write \(file.path): \(error)")
        }
        return file
    }

    /// Deletes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes a file that holds a private key, readable by its owner only.
    private static func writeSecret(_ data: Data, to file: URL) throws {
        try data.write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    /// `data.ringer` of the FCM ringing message, as `FCMPushSender` encodes it: the VoIP push's body, with
    /// the callee's id.
    private static func fcmRingerBody(callID: String) throws -> Data {
        let now = Date()
        return try RingerJSON.encode(
            VoIPPush.Body(
                callID: callID, caller: Party(id: "alice", name: "Alice"), calleeID: "bob",
                hasVideo: false, sentAt: now.unixMilliseconds,
                expiresAt: now.addingTimeInterval(45).unixMilliseconds))
    }

    /// The payload Ringer's server sends for a ringing call (`VoIPPush`), with a fixed call.
    private static func ringingPayload() throws -> Data {
        let now = Date()
        let body = VoIPPush.Body(
            callID: UUID().uuidString.lowercased(), caller: Party(id: "alice", name: "Alice"),
            hasVideo: false, sentAt: now.unixMilliseconds,
            expiresAt: now.addingTimeInterval(45).unixMilliseconds)
        return try RingerJSON.encode(VoIPPush(ringer: body))
    }
}
