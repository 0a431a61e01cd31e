import APNs
import DevCertificates
import Foundation
import JWT
import OpenSSLSupport
import RingerCommandLine
import RingerSandbox
import RingerSupport
import RingerWire
import Testing

@testable import RingerServer
@testable import RingerStore

/// `ringer doctor` (decision 0009 §5) against the APNs and FCM sandboxes, which speak the providers' protocols and
/// refuse what they refuse: credentials that work are `ok`, a key APNs does not know fails with what to fix.
@Suite(.serialized) struct DoctorCommandTests {
    /// The sandboxes, a signing key APNs knows and a service account Google (the FCM sandbox) grants.
    struct Providers {
        let directory: URL
        let apns: APNsSandbox
        let fcm: FCMSandbox
        let keyFile: URL
        let accountFile: URL
        let caFile: String
        let apnsPort: Int
        let fcmPort: Int

        static func start() async throws -> Providers {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ringer-doctor-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let tls = try DevCertificateAuthority.create().write(to: directory.appendingPathComponent("tls"))
            let key = try JWTSigningKey.generateP256()
            let keyFile = directory.appendingPathComponent("AuthKey.p8")
            try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
            let apns = APNsSandbox(
                configuration: .init(
                    certificatePath: tls.serverCertificate.path, privateKeyPath: tls.serverPrivateKey.path),
                logger: .silent())
            try apns.addProviderKey(keyID: "DOCTORKEY1", teamID: "DOCTORTEAM", publicKeyPEM: try key.publicKeyPEM())
            let apnsPort = try apns.start()
            let fcm = FCMSandbox(
                configuration: .init(
                    port: 0, http1Port: 0, certificatePath: tls.serverCertificate.path,
                    privateKeyPath: tls.serverPrivateKey.path), logger: .silent())
            let fcmPort = try fcm.start().http2
            let account = try FCMSandboxServiceAccountFile.make(
                projectID: "doctor-project", tokenURI: "https://localhost:\(fcmPort)/token")
            let accountFile = directory.appendingPathComponent("firebase.json")
            try account.write(to: accountFile)
            try fcm.addServiceAccount(json: account)
            // The database a server made before (the doctor migrates none).
            _ = try SQLiteStore(path: directory.appendingPathComponent("ringer.sqlite").path)
            return Providers(
                directory: directory, apns: apns, fcm: fcm, keyFile: keyFile, accountFile: accountFile,
                caFile: tls.caCertificate.path, apnsPort: apnsPort, fcmPort: fcmPort)
        }

        func stop() {
            apns.shutdown()
            fcm.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }

        /// `ringer serve`'s flags for them.
        func arguments(keyID: String = "DOCTORKEY1") -> [String] {
            [
                "--database", directory.appendingPathComponent("ringer.sqlite").path,
                "--apns-key-file", keyFile.path, "--apns-key-id", keyID, "--apns-team-id", "DOCTORTEAM",
                "--apns-host", "localhost:\(apnsPort)", "--apns-ca-file", caFile,
                "--fcm-service-account", accountFile.path, "--fcm-host", "localhost:\(fcmPort)", "--fcm-ca-file",
                caFile,
            ]
        }
    }

    static let environment = [
        "RINGER_ADMIN_KEY": "doctor-admin", "RINGER_USER_TOKEN_SECRET": String(repeating: "d", count: 40),
    ]

    /// The lines the command printed, and its exit status.
    static func doctor(_ arguments: [String]) async -> (status: Int32, lines: [String]) {
        let lines = LockedValue<[String]>([])
        let status = await DoctorCommand.run(arguments, environment: environment) { line in
            lines.withLock { $0.append(line) }
        }
        return (status, lines.snapshot)
    }

    @Test func workingCredentialsAreATicklistOfOk() async throws {
        let providers = try await Providers.start()
        defer { providers.stop() }
        let (status, lines) = await Self.doctor(providers.arguments())
        let text = lines.joined(separator: "\n")
        #expect(status == 0, "\(text)")
        for subject in ["database", "apns sandbox", "apns production", "fcm doctor-project", "clock"] {
            #expect(lines.contains { $0.hasPrefix("ok    \(subject):") }, "\(subject) in\n\(text)")
        }
        // The laboratory's CA lives 30 days: within the month that warns, with its expiry.
        #expect(lines.contains { $0.hasPrefix("warn  --apns-ca-file:") && $0.contains("expires in") }, "\(text)")
        // The media key is LiveKit's development pair by default: a warning with its fix, not a failure.
        #expect(lines.contains { $0.hasPrefix("warn  media:") })
        #expect(lines.contains { $0.contains("fix: set --media-api-key") })
    }

    @Test func aPushProviderAddedThroughTheAPIIsCheckedAsTheFlagsAre() async throws {
        let providers = try await Providers.start()
        defer { providers.stop() }
        // An app's key APNs knows, stored as `POST /v1/push-providers` stores it.
        let key = try JWTSigningKey.generateP256()
        try providers.apns.addProviderKey(
            keyID: "CLINICKEY1", teamID: "CLINICTEAM", publicKeyPEM: try key.publicKeyPEM())
        let store = try SQLiteStore(path: providers.directory.appendingPathComponent("ringer.sqlite").path)
        let id = "pp_" + String(repeating: "c", count: 24)
        let box = try SecretBox(keys: [WebhookEndpointTests.secretsKey])
        try await store.insertPushProvider(
            StoredPushProvider(
                info: PushProviderInfo(
                    providerID: id, name: "clinic", kind: .apns, teamID: "CLINICTEAM", keyID: "CLINICKEY1",
                    bundleIDs: ["com.example.clinic"], createdAt: Date(), updatedAt: Date()),
                sealedCredential: try box.seal(
                    Array(try key.pkcs8PEM().utf8), context: PushProviderAdmin.sealingContext(id))))
        let secretsKey = ["--secrets-key", Data(WebhookEndpointTests.secretsKey).base64EncodedString()]
        let (status, lines) = await Self.doctor(providers.arguments() + secretsKey)
        let text = lines.joined(separator: "\n")
        #expect(status == 0, "\(text)")
        #expect(lines.contains { $0.hasPrefix("ok    provider clinic apns sandbox:") }, "\(text)")
        // Without the key that sealed it, it cannot be used: a failure with what to do.
        let (without, refused) = await Self.doctor(providers.arguments())
        #expect(without == 1 && refused.contains { $0.hasPrefix("FAIL  provider clinic:") }, "\(refused)")
    }

    @Test func aKeyAPNsDoesNotKnowFailsWithWhatToFix() async throws {
        let providers = try await Providers.start()
        defer { providers.stop() }
        let (status, lines) = await Self.doctor(providers.arguments(keyID: "UNKNOWNKEY"))
        let text = lines.joined(separator: "\n")
        #expect(status == 1, "\(text)")
        #expect(
            lines.contains { $0.hasPrefix("FAIL  apns sandbox:") && $0.contains("InvalidProviderToken") }, "\(text)")
        #expect(lines.contains { $0.contains("fix: check the key id and team id (--apns-key-id") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("ok    fcm doctor-project:") }, "\(text)")
    }

    @Test func aDatabaseNotThereYetOrNotMigratedIsAWarningAndIsNotTouched() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-doctor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ringer.sqlite").path
        let (_, missing) = await Self.doctor(["--database", path])
        #expect(missing.contains { $0.hasPrefix("warn  database:") && $0.contains("does not exist yet") })
        #expect(!FileManager.default.fileExists(atPath: path))
        // A database of an older schema (version 9) is reported, and left at it.
        do {
            let db = try SQLiteConnection(path: path)
            for (index, migration) in SchemaMigrations.migrations.prefix(9).enumerated() {
                try db.transaction {
                    try db.execute(migration.sqlite)
                    try db.execute("PRAGMA user_version = \(index + 1)")
                }
            }
        }
        let (_, older) = await Self.doctor(["--database", path])
        #expect(older.contains { $0.hasPrefix("warn  database:") && $0.contains("schema 9 of") }, "\(older)")
        #expect(try await SQLiteStore(unmigratedPath: path).schemaStatus().version == 9)
    }

    @Test func flagsThatDoNotParseAreExitTwo() async throws {
        let (status, lines) = await Self.doctor(["--ring-timeout", "never"])
        #expect(status == 2 && lines.first?.hasPrefix("FAIL  configuration:") == true)
    }

    @Test func eachAPNsAnswerMeansWhatAppleSays() {
        let accepted = ServerCheckup.apnsItem("apns", APNsResponse(status: 400, reason: .badDeviceToken))
        #expect(accepted.status == .ok)
        let expired = ServerCheckup.apnsItem("apns", APNsResponse(status: 403, reason: .expiredProviderToken))
        #expect(expired.status == .failed && expired.fix?.contains("NTP") == true)
        let certificate = ServerCheckup.apnsItem("apns", APNsResponse(status: 403, reason: .badCertificateEnvironment))
        #expect(certificate.status == .failed)
        let other = ServerCheckup.apnsItem("apns", APNsResponse(status: 500, reason: .internalServerError))
        #expect(other.status == .warning)
    }
}
