import APNs
import DevCertificates
import Foundation
import RingerTestKit
import JWT
import RingerSupport
import RingerSandbox
import RingerTestSupport
import Testing

@testable import RingerBench

/// Each sender, with the harness's own keys and arguments, gets every push accepted by an APNs sandbox
/// (in process here, with small counts: this checks the set-up, it measures nothing).
@Suite(.serialized) struct SendersTests {
    private static func workload() throws -> PushWorkload { try PushWorkload(pushes: 40, concurrency: 8) }

    /// Starts a sandbox that trusts the fixture's key and knows its device token.
    private func sandbox(for fixture: BenchmarkFixture) throws -> (APNsSandbox, Int) {
        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: fixture.certificates.serverCertificate.path,
                privateKeyPath: fixture.certificates.serverPrivateKey.path),
            logger: .silent())
        try sandbox.addProviderKey(
            keyID: BenchmarkFixture.keyID, teamID: BenchmarkFixture.teamID,
            publicKeyPEM: try fixture.signingKey.publicKeyPEM())
        sandbox.register(SandboxDevice(token: fixture.deviceToken, bundleID: BenchmarkFixture.bundleID))
        return (sandbox, try sandbox.start())
    }

    @Test func ringersClientGetsEveryPushAccepted() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, port) = try sandbox(for: fixture)
        defer { sandbox.shutdown() }
        let run = RingerClientRun(
            url: "https://127.0.0.1:\(port)", caFile: fixture.certificates.caCertificate.path,
            keyFile: fixture.keyFile.path, keyID: BenchmarkFixture.keyID,
            teamID: BenchmarkFixture.teamID, deviceToken: fixture.deviceToken,
            topic: fixture.topic, payloadFile: fixture.payloadFile.path, workload: try Self.workload())
        let report = try await run.run()
        #expect(report.accepted == 40)
        #expect(report.firstFailure == nil)
        #expect(report.p50Ms != nil)
        let pushes = sandbox.acceptedPushes
        #expect(pushes.count == 40)
        #expect(Set(pushes.map(\.apnsID)).count == 40)
        #expect(pushes.allSatisfy { $0.pushType == "voip" && $0.priority == 10 && $0.expiration > 0 })
        #expect(pushes.first?.payload == Data(fixture.payload))
    }

    @Test func refusedPushesAreCountedNotHidden() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, port) = try sandbox(for: fixture)
        defer { sandbox.shutdown() }
        let client = try APNsClient(
            configuration: .init(
                credentials: .init(
                    key: fixture.signingKey, keyID: BenchmarkFixture.keyID, teamID: BenchmarkFixture.teamID),
                sandboxURL: "https://127.0.0.1:\(port)", caFile: fixture.certificates.caCertificate.path))
        defer { client.shutdown() }
        let unknownToken = String(repeating: "ab", count: 32)
        let report = await APNsLoadGenerator(
            client: client, deviceToken: unknownToken, topic: fixture.topic,
            payload: fixture.payload
        ).run(try PushWorkload(pushes: 5, concurrency: 2))
        #expect(report.accepted == 0)
        #expect(report.firstFailure == "400 BadDeviceToken")
    }

    @Test func aioapnsAndH2loadGetEveryPushAccepted() async throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let (sandbox, port) = try sandbox(for: fixture)
        defer { sandbox.shutdown() }
        let senders: [BenchmarkSender] = [
            .aioapns(python: "python3", script: PeerScripts.path("bench_aioapns.py")),
            .h2load(program: "h2load"),
        ]
        for sender in senders {
            let arguments = try sender.arguments(fixture: fixture, port: port, workload: try Self.workload())
            let stem = fixture.directory.appendingPathComponent(sender.name)
            let process = try ChildProcess(
                arguments, standardOutput: stem.appendingPathExtension("out"),
                standardError: stem.appendingPathExtension("err"))
            let exit = await process.finish(within: .seconds(60))
            #expect(exit.status == 0, "\(sender.name): \(process.standardErrorTail())")
            let report = try sender.report(from: try String(contentsOf: process.standardOutput, encoding: .utf8))
            #expect(report.pushes == 40, "\(sender.name)")
            #expect(report.accepted == 40, "\(sender.name): \(report.firstFailure ?? "")")
            #expect(exit.usage.maxRSSKiB > 0)
        }
        #expect(sandbox.acceptedPushes.count == 80)
    }
}
