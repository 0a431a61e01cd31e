import DevCertificates
import Foundation
import JWT
import RingerWire

/// The throw-away material one benchmark run needs, in a private temporary folder: a dev CA and a
/// localhost server certificate for the sandbox, an APNs signing key (`.p8`) with its key id and team id,
/// one device token registered with the sandbox, and the VoIP payload every sender sends.
struct BenchmarkFixture: Sendable {
    /// The signing key's id (`kid`): 10 characters, as Apple issues them.
    static let keyID = "BENCHKEY01"
    /// The team id (`iss`): 10 characters.
    static let teamID = "BENCHTEAM1"
    /// The app the device token belongs to.
    static let bundleID = "dev.ringer.bench"

    let directory: URL
    let certificates: DevCertificatePaths
    let keyFile: URL
    let signingKey: JWTSigningKey
    /// 32 random bytes as lowercase hex, like an iPhone's PushKit token.
    let deviceToken: String
    let payloadFile: URL
    let payload: [UInt8]

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
            return BenchmarkFixture(directory: directory, certificates: certificates, keyFile: keyFile,
                                    signingKey: signingKey, deviceToken: token, payloadFile: payloadFile, payload: payload)
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
        return try JWT.sign(Claims(iss: Self.teamID, iat: Int64(Date().timeIntervalSince1970)), keyID: Self.keyID,
                            type: nil, with: signingKey)
    }

    /// Deletes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The payload Ringer's server sends for a ringing call (`VoIPPush`), with a fixed call.
    private static func ringingPayload() throws -> Data {
        let now = Date()
        let body = VoIPPush.Body(callId: UUID().uuidString.lowercased(), caller: Party(id: "alice", name: "Alice"),
                                 hasVideo: false, sentAt: now.unixMilliseconds,
                                 expiresAt: now.addingTimeInterval(45).unixMilliseconds)
        return try RingerJSON.encode(VoIPPush(ringer: body))
    }
}
