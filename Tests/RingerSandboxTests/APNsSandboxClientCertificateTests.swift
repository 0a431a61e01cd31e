import APNs
import DevCertificates
import Foundation
import RingerSupport
import RingerSandbox
import RingerTestSupport
import RingerWire
import Testing

/// Certificate-based authentication end to end (Apple: "Establishing a certificate-based connection to
/// APNs"): Ringer's APNs client presents an app certificate to a sandbox started with a client CA, and
/// `curl` plays the clients with no certificate or one from an untrusted CA.
@Suite(.serialized) struct APNsSandboxClientCertificateTests {
    static let bundleID = "com.example.app"

    /// A sandbox trusting `ProviderCertificates.clientCA`, with one registered device and no provider key.
    struct Fixture {
        let sandbox: APNsSandbox
        let port: Int
        let serverCA: String
        let certificates: ProviderCertificates
        let deviceToken = String(repeating: "4d", count: 32)

        static func with(_ body: (Fixture) async throws -> Void) async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ringer-mtls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let tls = try DevCertificateAuthority.create().write(to: directory.appendingPathComponent("server"))
            let certificates = try await ProviderCertificates.make(in: directory, bundleID: bundleID)
            let sandbox = APNsSandbox(
                configuration: .init(
                    certificatePath: tls.serverCertificate.path,
                    privateKeyPath: tls.serverPrivateKey.path,
                    clientCAPath: certificates.clientCA), logger: .silent())
            let port = try sandbox.start()
            defer { sandbox.shutdown() }
            let fixture = Fixture(
                sandbox: sandbox, port: port, serverCA: tls.caCertificate.path, certificates: certificates)
            sandbox.register(SandboxDevice(token: fixture.deviceToken, bundleID: bundleID))
            try await body(fixture)
        }

        /// Ringer's APNs client presenting `certificate` to this sandbox.
        func client(certificate: (certificate: String, key: String)) throws -> APNsClient {
            let identity = try APNsCertificate.load(file: certificate.certificate, keyFile: certificate.key)
            return try APNsClient(
                configuration: .init(
                    authentication: .certificate(identity),
                    sandboxURL: "https://localhost:\(port)",
                    productionURL: "https://localhost:1", caFile: serverCA,
                    requestTimeout: 20, voipRequestTimeout: 20, connectionsPerHost: 1))
        }

        /// One VoIP push with `curl` (no `authorization` header); `extra` adds curl options.
        /// - Returns: curl's exit status, the HTTP status (0 when none came) and the body.
        func curl(_ extra: [String]) async throws -> (exit: Int32, status: Int, body: String) {
            let outcome = try await ChildProcess.run(
                [
                    "curl", "-sS", "--http2", "--cacert", serverCA, "--max-time", "20", "-X", "POST",
                    "-H", "apns-topic: \(APNsSandboxClientCertificateTests.bundleID).voip", "-H",
                    "apns-push-type: voip",
                    "--data", #"{"ringer":{}}"#, "-w", "\n%{http_code}",
                ] + extra
                    + ["https://localhost:\(port)/3/device/\(deviceToken)"])
            let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            return (outcome.status, Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
    }

    /// `GET /sandbox/pushes?since=N` lists only the pushes after the first N, so a poller reads what is new.
    @Test func pushesSinceACountListOnlyTheNewerPushes() async throws {
        try await Fixture.with { fixture in
            let client = try fixture.client(certificate: fixture.certificates.app)
            defer { client.shutdown() }
            for index in 0..<3 {
                let push = APNsNotification(
                    pushType: .voip, topic: Self.bundleID + ".voip",
                    payload: Array(#"{"ringer":{"v":1,"n":\#(index)}}"#.utf8))
                #expect(try await client.send(push, to: fixture.deviceToken, environment: .sandbox).0.status == 200)
            }
            func list(_ query: String) async throws -> (status: Int, payloads: [String]) {
                let outcome = try await ChildProcess.run(
                    [
                        "curl", "-sS", "--http2", "--cacert", fixture.serverCA, "--max-time", "20", "-w",
                        "\n%{http_code}",
                        "https://localhost:\(fixture.port)/sandbox/pushes\(query)",
                    ])
                let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
                let body = Data(lines.dropLast().joined(separator: "\n").utf8)
                let pushes = (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] ?? []
                let payloads = pushes.compactMap { ($0["payload"] as? String).flatMap { Data(base64Encoded: $0) } }
                return (Int(lines.last ?? "") ?? 0, payloads.map { String(decoding: $0, as: UTF8.self) })
            }
            #expect(try await list("").payloads.count == 3)
            let newer = try await list("?since=2")
            #expect(newer.status == 200)
            #expect(newer.payloads == [#"{"ringer":{"v":1,"n":2}}"#])
            #expect(try await list("?since=3").payloads.isEmpty)
            #expect(try await list("?since=99").payloads.isEmpty)
            #expect(try await list("?since=-1").status == 400)
            #expect(try await list("?since=two").status == 400)
        }
    }

    @Test func appCertificatePushesToItsVoIPTopicWithoutAProviderToken() async throws {
        try await Fixture.with { fixture in
            let client = try fixture.client(certificate: fixture.certificates.app)
            defer { client.shutdown() }
            #expect(client.providerToken == nil)
            let push = APNsNotification(
                pushType: .voip, topic: Self.bundleID + ".voip",
                payload: Array(#"{"ringer":{"v":1}}"#.utf8))
            let (response, _) = try await client.send(push, to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
            #expect(fixture.sandbox.acceptedPushes.map(\.topic) == [Self.bundleID + ".voip"])

            // Another app's topic on the same connection: the certificate does not cover it.
            let otherApp = APNsNotification(
                pushType: .alert, topic: "com.other.app", payload: Array(#"{"aps":{}}"#.utf8))
            let (refused, _) = try await client.send(otherApp, to: fixture.deviceToken, environment: .sandbox)
            #expect(refused.status == 400)
            #expect(refused.reason?.rawValue == "TopicDisallowed")
            #expect(fixture.sandbox.acceptedPushes.count == 1)
        }
    }

    @Test func noCertificateAndNoTokenIsMissingProviderToken() async throws {
        try await Fixture.with { fixture in
            let answer = try await fixture.curl([])
            #expect(answer.exit == 0)
            #expect(answer.status == 403)
            #expect(answer.body.contains(#""reason":"MissingProviderToken""#))
            // curl with the app certificate: the same request is accepted.
            let app = fixture.certificates.app
            let accepted = try await fixture.curl(["--cert", app.certificate, "--key", app.key])
            #expect(accepted.status == 200)
            #expect(fixture.sandbox.acceptedPushes.count == 1)
        }
    }

    @Test func unreadableClientCAFailsTheStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-mtls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory)
        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path,
                clientCAPath: directory.appendingPathComponent("absent.pem").path),
            logger: .silent())
        defer { sandbox.shutdown() }
        #expect(throws: (any Error).self) { try sandbox.start() }
    }

    @Test func certificateFromAnotherCAIsRefusedInTheHandshake() async throws {
        try await Fixture.with { fixture in
            let rogue = fixture.certificates.rogue
            let answer = try await fixture.curl(["--cert", rogue.certificate, "--key", rogue.key])
            #expect(answer.exit != 0)
            #expect(answer.status == 0)

            let client = try fixture.client(certificate: rogue)
            defer { client.shutdown() }
            let push = APNsNotification(
                pushType: .voip, topic: Self.bundleID + ".voip", payload: Array(#"{"ringer":{}}"#.utf8))
            let error = await #expect(throws: APNsClientError.self) {
                try await client.send(push, to: fixture.deviceToken, environment: .sandbox)
            }
            // A refused certificate is the server's set-up problem: not retryable, and named as such.
            #expect(error?.isCertificateRefused == true)
            #expect(error?.isRetryable == false)
            #expect(error?.isTimeout == false)
            // The operator sees why: the server's TLS alert, not "no answer".
            #expect(error?.description.contains("unknown ca") == true, "\(String(describing: error))")
            #expect(fixture.sandbox.acceptedPushes.isEmpty)
        }
    }
}
