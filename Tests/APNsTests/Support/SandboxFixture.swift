import APNs
import DevCertificates
import Foundation
import JWT
import RingerSupport
import RingerSandbox
import RingerWire

/// An APNs sandbox on an ephemeral loopback port (throw-away CA, one trusted provider key, one registered
/// device) and a factory for real ``APNsClient``s pointed at it. Use through ``with(_:)``, which cleans up.
final class SandboxFixture: Sendable {
    static let bundleID = "com.example.app"
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"

    let sandbox: APNsSandbox
    let port: Int
    let deviceToken: String
    private let directory: URL
    let caFile: String
    private let key: JWTSigningKey

    private init(
        sandbox: APNsSandbox, port: Int, deviceToken: String, directory: URL, caFile: String, key: JWTSigningKey
    ) {
        self.sandbox = sandbox
        self.port = port
        self.deviceToken = deviceToken
        self.directory = directory
        self.caFile = caFile
        self.key = key
    }

    /// Starts a sandbox, runs `body`, then stops the sandbox and deletes the files, also when `body` throws.
    static func with<T>(_ body: (SandboxFixture) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory)
        let key = try JWTSigningKey.generateP256()
        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path), logger: .silent())
        try sandbox.addProviderKey(keyID: keyID, teamID: teamID, publicKeyPEM: try key.publicKeyPEM())
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        sandbox.register(SandboxDevice(token: token, bundleID: bundleID))
        let port = try sandbox.start()
        defer { sandbox.shutdown() }
        let fixture = SandboxFixture(
            sandbox: sandbox, port: port, deviceToken: token, directory: directory,
            caFile: tls.caCertificate.path, key: key)
        return try await body(fixture)
    }

    /// A client whose sandbox host is this sandbox (the production host points nowhere useful).
    /// - Parameter configure: adjusts the configuration (timeouts, pool size) first.
    func client(_ configure: (inout APNsClient.Configuration) -> Void = { _ in }) throws -> APNsClient {
        var configuration = APNsClient.Configuration(
            credentials: .init(key: key, keyID: Self.keyID, teamID: Self.teamID),
            sandboxURL: "https://localhost:\(port)",
            productionURL: "https://localhost:1", caFile: caFile)
        // Generous deadlines unless a test is about them: a busy CI machine must not turn a slow answer
        // into a failure of some other behaviour.
        configuration.voipRequestTimeout = 30
        configuration.requestTimeout = 30
        configure(&configuration)
        return try APNsClient(configuration: configuration)
    }

    /// A VoIP push for the registered device, with a fresh `apns-id`.
    func voipPush(expiresIn seconds: TimeInterval = 45) -> APNsNotification {
        APNsNotification(
            pushType: .voip, topic: Self.bundleID + ".voip", priority: 10,
            expiration: Date().addingTimeInterval(seconds), payload: Array(#"{"ringer":{"v":1}}"#.utf8))
    }

    /// Sends `count` VoIP pushes at once through `client`.
    /// - Returns: each push's `apns-id` (lowercase) with its outcome.
    func sendMany(
        _ count: Int, through client: APNsClient,
        deadline: Date? = nil
    ) async -> [(apnsID: String, outcome: Result<APNsResponse, any Error>)] {
        await withTaskGroup(of: (String, Result<APNsResponse, any Error>).self) { group in
            for _ in 0..<count {
                let push = voipPush()
                let token = deviceToken
                group.addTask {
                    let id = push.apnsID.uuidString.lowercased()
                    do {
                        return (
                            id,
                            .success(
                                try await client.send(
                                    push, to: token, environment: .sandbox,
                                    deadline: deadline
                                ).response)
                        )
                    } catch {
                        return (id, .failure(error))
                    }
                }
            }
            var results: [(apnsID: String, outcome: Result<APNsResponse, any Error>)] = []
            for await result in group { results.append(result) }
            return results
        }
    }
}
