import DevCertificates
import Foundation
import JWT
import RingerSupport
import RingerSandbox
import RingerTestSupport
import Testing

/// The sandbox must accept or reject pushes from an independent APNs client (aioapns, plus raw
/// `h2` requests) exactly as Apple would.
@Suite(.serialized) struct APNsSandboxIndependentClientTests {
    @Test func aioapnsAndRawHTTP2RequestsGetApplesAnswers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory)
        let key = try JWTSigningKey.generateP256()
        let keyFile = directory.appendingPathComponent("AuthKey.p8")
        try Data(try key.pkcs8PEM().utf8).write(to: keyFile)

        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path), logger: .silent())
        try sandbox.addProviderKey(keyID: "KEY1234567", teamID: "TEAM123456", publicKeyPEM: try key.publicKeyPEM())
        let token = String(repeating: "1a", count: 32)
        let otherApp = String(repeating: "2b", count: 32)
        let gone = String(repeating: "3c", count: 32)
        sandbox.register(SandboxDevice(token: token, bundleID: "com.example.app"))
        sandbox.register(SandboxDevice(token: otherApp, bundleID: "com.other.app"))
        sandbox.register(SandboxDevice(token: gone, bundleID: "com.example.app"))
        let goneAt = Date(timeIntervalSince1970: 1_800_000_000)
        sandbox.unregister(token: gone, at: goneAt)
        let port = try sandbox.start()
        defer { sandbox.shutdown() }

        let output = try await PeerScripts.run(
            "apns_client_peer.py",
            [
                "--port", String(port), "--ca", tls.caCertificate.path,
                "--key", keyFile.path, "--key-id", "KEY1234567", "--team-id", "TEAM123456", "--bundle",
                "com.example.app",
                "--token", token, "--other-app-token", otherApp, "--unregistered-token", gone,
            ]
        ).standardOutput
        struct Outcome: Decodable {
            var `case`: String
            var status: Int
            var reason: String?
            var timestamp: Int64?
        }
        let outcomes = try output.split(separator: "\n").map {
            try JSONDecoder().decode(Outcome.self, from: Data($0.utf8))
        }
        let byCase = Dictionary(outcomes.map { ($0.case, $0) }, uniquingKeysWith: { $1 })
        let expected: [String: (Int, String?)] = [
            "voip_accepted": (200, nil),
            "unknown_token": (400, "BadDeviceToken"),
            "other_app_token": (400, "DeviceTokenNotForTopic"),
            "unregistered_token": (410, "Unregistered"),
            "voip_too_large": (413, "PayloadTooLarge"),
            "alert_to_voip_topic": (400, "InvalidPushType"),
            "alert_accepted": (200, nil),
            "wrong_signing_key": (403, "InvalidProviderToken"),
            "raw_accepted": (200, nil),
            "missing_topic": (400, "MissingTopic"),
            "expired_provider_token": (403, "ExpiredProviderToken"),
            "missing_provider_token": (403, "MissingProviderToken"),
            "method_not_allowed": (405, "MethodNotAllowed"),
            "bad_path": (404, "BadPath"),
            "bad_priority": (400, "BadPriority"),
        ]
        #expect(Set(byCase.keys) == Set(expected.keys))
        for (name, (status, reason)) in expected {
            #expect(byCase[name]?.status == status, "\(name)")
            #expect(byCase[name]?.reason == reason, "\(name)")
        }
        #expect(byCase["unregistered_token"]?.timestamp == Int64(goneAt.timeIntervalSince1970 * 1000))
        // Exactly the accepted pushes were recorded for delivery.
        #expect(sandbox.acceptedPushes.count == 3)
        #expect(sandbox.acceptedPushes.first?.pushType == "voip")
        #expect(sandbox.acceptedPushes.first?.topic == "com.example.app.voip")
    }
}
