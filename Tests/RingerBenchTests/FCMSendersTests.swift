import DevCertificates
import FCM
import Foundation
import RingerTestKit
import RingerSupport
import RingerSandbox
import RingerTestSupport
import Testing

@testable import RingerBench

/// Each FCM sender, with the harness's own service account, token and arguments, gets every ringing message
/// accepted by an FCM sandbox (in process here, with small counts: this checks the set-up, it measures
/// nothing), and the messages are the ones Ringer's server sends.
@Suite(.serialized) struct FCMSendersTests {
    private static func workload() throws -> PushWorkload { try PushWorkload(pushes: 40, concurrency: 8) }

    /// Starts a sandbox that trusts the fixture's service account and knows its registration token, and
    /// prepares the senders' context against it (which makes one grant, for h2load).
    private func sandbox(for fixture: BenchmarkFixture) async throws -> (FCMSandbox, FCMBenchmarkSender.Context) {
        let sandbox = FCMSandbox(
            configuration: .init(
                certificatePath: fixture.certificates.serverCertificate.path,
                privateKeyPath: fixture.certificates.serverPrivateKey.path),
            logger: .silent())
        try sandbox.addServiceAccount(json: try Data(contentsOf: fixture.fcmServiceAccountFile))
        sandbox.register(FCMSandboxDevice(token: fixture.fcmToken, projectID: BenchmarkFixture.fcmProjectID))
        let ports = try sandbox.start()
        do {
            let context = try await FCMBenchmarkSender.Context.prepare(
                fixture: fixture, ports: .init(http2: ports.http2, http1: try #require(ports.http1)))
            return (sandbox, context)
        } catch {
            sandbox.shutdown()
            throw error
        }
    }

    /// What every sender must have sent: the ringing message as `FCMPushSender` builds it.
    private func expectRingingMessages(
        _ messages: [FCMSandboxMessage], fixture: BenchmarkFixture,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!messages.isEmpty, sourceLocation: sourceLocation)
        for message in messages {
            #expect(message.data == ["ringer": fixture.fcmRinger], sourceLocation: sourceLocation)
            #expect(message.requestedPriority == .high, sourceLocation: sourceLocation)
            #expect(message.ttl == 45, sourceLocation: sourceLocation)
            #expect(message.collapseKey == fixture.fcmCollapseKey, sourceLocation: sourceLocation)
            #expect(message.notification == nil, sourceLocation: sourceLocation)
            #expect(message.token == fixture.fcmToken, sourceLocation: sourceLocation)
        }
    }

    @Test func ringersFCMClientGetsEveryRingingMessageAccepted() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, context) = try await sandbox(for: fixture)
        defer { sandbox.shutdown() }
        let run = FCMClientRun(
            url: "https://127.0.0.1:\(context.ports.http2)", caFile: fixture.certificates.caCertificate.path,
            serviceAccountFile: context.http2ServiceAccount.path, token: fixture.fcmToken,
            ringerFile: fixture.fcmRingerFile.path, collapseKey: fixture.fcmCollapseKey,
            workload: try Self.workload())
        let report = try await run.run()
        #expect(report.accepted == 40)
        #expect(report.firstFailure == nil)
        #expect(report.p50Ms != nil)
        let messages = sandbox.acceptedMessages
        #expect(messages.count == 40)
        #expect(Set(messages.map(\.name)).count == 40)
        expectRingingMessages(messages, fixture: fixture)
        // h2load's grant and Ringer's own: one each, however many messages were in flight.
        #expect(sandbox.statistics.accessTokensIssued == 2)
    }

    @Test func refusedFCMMessagesAreCountedNotHidden() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, context) = try await sandbox(for: fixture)
        defer { sandbox.shutdown() }
        let client = try FCMClient(
            configuration: .init(
                serviceAccounts: [try FCMServiceAccount(contentsOfFile: context.http2ServiceAccount.path)],
                baseURL: "https://127.0.0.1:\(context.ports.http2)", caFile: fixture.certificates.caCertificate.path))
        defer { client.shutdown() }
        let report = await FCMLoadGenerator(
            client: client, token: "never-issued-token", ringer: fixture.fcmRinger,
            collapseKey: fixture.fcmCollapseKey
        ).run(try PushWorkload(pushes: 5, concurrency: 2))
        #expect(report.accepted == 0)
        #expect(report.firstFailure == "400 INVALID_ARGUMENT")
    }

    @Test func firebaseAdminAndH2loadGetEveryRingingMessageAccepted() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, context) = try await sandbox(for: fixture)
        defer { sandbox.shutdown() }
        let script = PeerScripts.path("bench_firebase_admin.py")
        let senders: [FCMBenchmarkSender] = [
            .firebaseAdmin(python: "python3", script: script, mode: .async),
            .firebaseAdmin(python: "python3", script: script, mode: .sync),
            .h2load(program: "h2load"),
        ]
        for sender in senders {
            let arguments = sender.arguments(fixture: fixture, context: context, workload: try Self.workload())
            let stem = fixture.directory.appendingPathComponent(sender.name.replacingOccurrences(of: " ", with: "-"))
            let process = try ChildProcess(
                arguments, standardOutput: stem.appendingPathExtension("out"),
                standardError: stem.appendingPathExtension("err"))
            let exit = await process.finish(within: .seconds(120))
            #expect(exit.status == 0, "\(sender.name): \(process.standardErrorTail())")
            let report = try sender.report(from: try String(contentsOf: process.standardOutput, encoding: .utf8))
            #expect(report.pushes == 40, "\(sender.name)")
            #expect(report.accepted == 40, "\(sender.name): \(report.firstFailure ?? "")")
            #expect(exit.usage.maxRSSKiB > 0)
        }
        let messages = sandbox.acceptedMessages
        #expect(messages.count == 120)
        expectRingingMessages(messages, fixture: fixture)
        // Every sender got its access token from the sandbox: h2load's from the harness's grant.
        #expect(sandbox.statistics.accessTokensIssued >= 2)
    }

    @Test func firebaseAdminsRefusedMessagesAreCountedNotHidden() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, context) = try await sandbox(for: fixture)
        defer { sandbox.shutdown() }
        sandbox.unregister(token: fixture.fcmToken, at: Date())
        let sender = FCMBenchmarkSender.firebaseAdmin(
            python: "python3", script: PeerScripts.path("bench_firebase_admin.py"),
            mode: .async)
        let arguments = sender.arguments(
            fixture: fixture, context: context, workload: try PushWorkload(pushes: 3, concurrency: 3))
        let stem = fixture.directory.appendingPathComponent("refused")
        let process = try ChildProcess(
            arguments, standardOutput: stem.appendingPathExtension("out"),
            standardError: stem.appendingPathExtension("err"))
        let exit = await process.finish(within: .seconds(120))
        #expect(exit.status == 0, "\(process.standardErrorTail())")
        let report = try sender.report(from: try String(contentsOf: process.standardOutput, encoding: .utf8))
        #expect(report.accepted == 0)
        #expect(report.firstFailure?.hasPrefix("UnregisteredError NOT_FOUND") == true, "\(report.firstFailure ?? "")")
    }
}
