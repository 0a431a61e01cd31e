import FCM
import Foundation
import RingerTestKit
import Testing

@testable import RingerBench

/// The harness reads other programs' output (h2load, /proc, the senders' JSON) and writes the RESULT line
/// that tools grep for: each format is pinned here.
struct BenchmarkParsingTests {
    @Test func readsH2loadSummary() throws {
        let output = """
            starting benchmark...
            spawning thread #0: 1 total client(s). 20000 total requests
            TLS Protocol: TLSv1.3
            Application protocol: h2
            finished in 1.52s, 13157.89 req/s, 1.10MB/s
            requests: 20000 total, 20000 started, 20000 done, 19990 succeeded, 10 failed, 0 errored, 0 timeout
            status codes: 19990 2xx, 0 3xx, 7 4xx, 3 5xx
            traffic: 1.67MB (1750000) total, 430.00KB (440000) headers (space savings 90.00%), 0 data
            """
        let parsed = try H2LoadOutput.parse(output)
        #expect(
            parsed
                == H2LoadOutput(
                    seconds: 1.52, requestsPerSecond: 13157.89, total: 20000, status2xx: 19990,
                    status4xx: 7, status5xx: 3))
        let report = try BenchmarkSender.h2load(program: "h2load").report(from: output)
        #expect(report.accepted == 19990)
        #expect(report.firstFailure == "7 4xx, 3 5xx")
        #expect(report.p50Ms == nil)
    }

    @Test func readsH2loadTimeUnitsAndRejectsMissingLines() throws {
        let fast = """
            finished in 812.50ms, 24615.38 req/s, 2.00MB/s
            requests: 20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, 0 errored, 0 timeout
            status codes: 20000 2xx, 0 3xx, 0 4xx, 0 5xx
            """
        #expect(try H2LoadOutput.parse(fast).seconds == 0.8125)
        #expect(throws: BenchmarkError.self) { try H2LoadOutput.parse("finished in 1s, 10 req/s, 1MB/s\n") }
        #expect(throws: BenchmarkError.self) { try H2LoadOutput.parse("connect: Connection refused\n") }
    }

    @Test func readsTheSendersJSONLineAsThePythonPeerWritesIt() throws {
        let output = """
            some warning on stdout
            {"sender": "aioapns 4.0", "pushes": 100, "accepted": 99, "first_failure": "403 InvalidProviderToken", "seconds": 0.5, "p50_ms": 12.5, "p99_ms": 40.0}
            """
        let report = try SenderReport.decode(fromOutput: output)
        #expect(report.sender == "aioapns 4.0")
        #expect(report.accepted == 99)
        #expect(report.firstFailure == "403 InvalidProviderToken")
        #expect(report.p99Ms == 40.0)
        #expect(report.pushesPerSecond == 198)
        // Ringer's sender writes the same keys, so the harness reads both alike.
        let ringer = SenderReport(
            sender: "Ringer APNsClient", pushes: 4, accepted: 4, firstFailure: nil, seconds: 2,
            latencies: [0.004, 0.001, 0.003, 0.002])
        #expect(ringer.jsonLine().contains("\"p50_ms\":2"))
        #expect(try SenderReport.decode(fromOutput: ringer.jsonLine() + "\n") == ringer)
        #expect(throws: (any Error).self) {
            try SenderReport.decode(fromOutput: "Traceback (most recent call last):\n")
        }
    }

    @Test func percentilesUseNearestRank() {
        let values = (1...100).map(Double.init)
        #expect(SenderReport.percentile(0.50, of: values) == 50)
        #expect(SenderReport.percentile(0.99, of: values) == 99)
        #expect(SenderReport.percentile(0.99, of: [7]) == 7)
        #expect(SenderReport.percentile(0.5, of: []) == 0)
    }

    @Test func readsTheSandboxPort() {
        #expect(SandboxProcess.listeningPort(in: "APNs sandbox listening on https://127.0.0.1:40123\n") == 40123)
        #expect(SandboxProcess.listeningPort(in: "starting\n") == nil)
    }

    @Test func readsTheFCMSandboxPortsFromItsStartLine() {
        // The two lines `ringer-lab sandbox` prints, in its order.
        let output = """
            APNs sandbox listening on https://127.0.0.1:40123
            FCM sandbox listening on https://127.0.0.1:40124 (HTTP/2) and https://127.0.0.1:40125 (HTTP/1.1, token URI https://localhost:40125/token)

            """
        #expect(SandboxProcess.fcmPorts(in: output) == .init(http2: 40124, http1: 40125))
        #expect(SandboxProcess.listeningPort(in: output) == 40123)
        // Until the FCM line is written (or without an HTTP/1.1 port) there is nothing to use.
        #expect(SandboxProcess.fcmPorts(in: "APNs sandbox listening on https://127.0.0.1:40123\n") == nil)
        #expect(SandboxProcess.fcmPorts(in: "FCM sandbox listening on https://127.0.0.1:40124 (HTTP/2)\n") == nil)
    }

    @Test func resultLineHasTheAgreedShape() throws {
        func figures(_ name: String, _ rate: Double) -> SenderFigures {
            SenderFigures(
                report: SenderReport(
                    sender: name, pushes: 1000, accepted: 1000, firstFailure: nil,
                    seconds: 1000 / rate, latencies: [0.01]),
                usage: ProcessUsage(cpuSeconds: 0.5, maxRSSKiB: 20_000), processSeconds: 1,
                sandboxCPUSeconds: 0.9)
        }
        let report = BenchmarkReport(
            workload: try PushWorkload(pushes: 1000, concurrency: 100),
            ringer: figures("Ringer APNsClient", 9000), aioapns: figures("aioapns 4.0", 2000),
            h2load: figures("h2load", 12000), sandbox: ProcessUsage(cpuSeconds: 3, maxRSSKiB: 1),
            cores: 2, cpuModel: nil, buildMode: "release")
        let expected =
            "RESULT pushes_per_s=9000 aioapns_per_s=2000 h2load_per_s=12000 ratio_vs_aioapns=4.50 ratio_vs_h2load=0.75"
        #expect(report.resultLine == expected)
        #expect(report.render().split(separator: "\n").last.map(String.init) == expected)
        #expect(report.render().contains("500"))  // CPU µs per push: 0.5 s over 1000 pushes

        // With a pool, the one-connection run is a row of its own; the RESULT line stays the pool's.
        var pooled = report
        pooled.ringerConnections = 2
        pooled.ringerOneConnection = figures("Ringer APNsClient", 7000)
        #expect(pooled.render().contains("Ringer APNsClient, 2 conns"))
        #expect(pooled.render().contains("Ringer APNsClient, 1 conn "))
        #expect(pooled.render().contains("7000"))
        #expect(pooled.render().contains("all 4000 accepted"))
        #expect(pooled.resultLine == expected)
    }

    private func figures(_ name: String, _ rate: Double, cpuSeconds: Double = 0.5) -> SenderFigures {
        SenderFigures(
            report: SenderReport(
                sender: name, pushes: 1000, accepted: 1000, firstFailure: nil,
                seconds: 1000 / rate, latencies: [0.01]),
            usage: ProcessUsage(cpuSeconds: cpuSeconds, maxRSSKiB: 20_000), processSeconds: 1,
            sandboxCPUSeconds: 0.9)
    }

    @Test func fcmResultLineHasTheAgreedShapeAndComparesWithSendEachAsync() throws {
        let report = FCMBenchmarkReport(
            workload: try PushWorkload(pushes: 1000, concurrency: 100),
            ringer: figures("Ringer FCMClient", 9000),
            firebaseAdmin: figures("firebase-admin 7.7.0 send_each_async", 1500, cpuSeconds: 1.8),
            firebaseAdminSync: figures("firebase-admin 7.7.0 send_each", 600),
            h2load: figures("h2load", 12000),
            ringerOneConnection: figures("Ringer FCMClient", 7000),
            sandbox: ProcessUsage(cpuSeconds: 4, maxRSSKiB: 1), cores: 2, cpuModel: nil,
            buildMode: "release", ringerConnections: 2)
        let expected =
            "RESULT fcm messages_per_s=9000 firebase_admin_per_s=1500 h2load_per_s=12000"
            + " ratio_vs_firebase_admin=6.00 ratio_vs_h2load=0.75"
        #expect(report.resultLine == expected)
        let lines = report.render().split(separator: "\n").map(String.init)
        #expect(lines.last == expected)
        #expect(lines.contains { $0.hasPrefix("Ringer FCMClient, 2 conns ") })
        #expect(lines.contains { $0.hasPrefix("Ringer FCMClient, 1 conn ") && $0.contains("7000") })
        #expect(lines.contains { $0.hasPrefix("firebase-admin 7.7.0 send_each ") && $0.contains("600") })
        // µs per message:
        #expect(lines.contains { $0.hasPrefix("firebase-admin 7.7.0 send_each_async ") && $0.contains("1800") })
        #expect(lines.contains("Ringer / firebase-admin send_each (sync) = 15.00"))
        #expect(report.render().contains("all 5000 accepted"))
        #expect(report.render().contains("(goal >= 5: met)"))
        #expect(report.render().contains("(goal >= 0.6: met)"))
    }

    @Test(
        "Rounds: the median round is one that was measured (lower middle of an even count), and every round is printed")
    func roundsCountByTheirMedianRound() throws {
        let runs = [figures("h2load", 20000), figures("h2load", 14000), figures("h2load", 26000)]
        #expect(SenderRounds.median(of: runs).pushesPerSecond.rounded() == 20000)
        #expect(SenderRounds.median(of: Array(runs.prefix(2))).pushesPerSecond.rounded() == 14000)
        #expect(SenderRounds.median(of: [runs[2]]).pushesPerSecond.rounded() == 26000)

        var report = FCMBenchmarkReport(
            workload: try PushWorkload(pushes: 1000, concurrency: 100),
            ringer: figures("Ringer FCMClient", 9000),
            firebaseAdmin: figures("firebase-admin send_each_async", 1500),
            firebaseAdminSync: nil, h2load: runs[0],
            sandbox: ProcessUsage(cpuSeconds: 4, maxRSSKiB: 1), cores: 2, cpuModel: nil,
            buildMode: "release")
        let single = report.render()
        #expect(!single.contains("interleaved rounds"))
        report.rounds = [
            SenderRounds(label: "Ringer FCM, pool of 2", perSecond: [8000, 9000, 9500]),
            SenderRounds(label: "h2load FCM", perSecond: runs.map(\.pushesPerSecond)),
        ]
        let lines = report.render().split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("3 interleaved rounds (messages/s") })
        #expect(lines.contains("  Ringer FCM, pool of 2: 8000 9000 9500 (median 9000)"))
        #expect(lines.contains("  h2load FCM: 20000 14000 26000 (median 20000)"))
        // Three senders in the table, and two more rounds of each of the two round senders.
        #expect(report.render().contains("all 7000 accepted"))
        #expect(lines.last == report.resultLine)
    }

    @Test func bothPartsPrintTheirOwnResultLinesAPNsUnchanged() throws {
        let workload = try PushWorkload(pushes: 1000, concurrency: 100)
        let apns = BenchmarkReport(
            workload: workload, ringer: figures("Ringer APNsClient", 9000),
            aioapns: figures("aioapns 4.0", 2000), h2load: figures("h2load", 12000),
            sandbox: ProcessUsage(cpuSeconds: 3, maxRSSKiB: 1), cores: 2, cpuModel: nil,
            buildMode: "release")
        let fcm = FCMBenchmarkReport(
            workload: workload, ringer: figures("Ringer FCMClient", 5000),
            firebaseAdmin: figures("firebase-admin send_each_async", 2000), firebaseAdminSync: nil,
            h2load: figures("h2load", 10000), sandbox: ProcessUsage(cpuSeconds: 3, maxRSSKiB: 1),
            cores: 2, cpuModel: nil, buildMode: "release")
        let results = BenchmarkResults(apns: apns, fcm: fcm).render().split(separator: "\n").map(String.init)
        let resultLines = results.filter { $0.hasPrefix("RESULT ") }
        #expect(
            resultLines == [
                "RESULT pushes_per_s=9000 aioapns_per_s=2000 h2load_per_s=12000 ratio_vs_aioapns=4.50 ratio_vs_h2load=0.75",
                "RESULT fcm messages_per_s=5000 firebase_admin_per_s=2000 h2load_per_s=10000 ratio_vs_firebase_admin=2.50 ratio_vs_h2load=0.50",
            ])
        #expect(results.last == resultLines.last)
        #expect(BenchmarkResults(apns: nil, fcm: fcm).render() == fcm.render())
        #expect(BenchmarkResults(apns: apns, fcm: nil).render() == apns.render())
        #expect(fcm.render().contains("(goal >= 5: NOT met)"))
    }

    @Test func fcmFixtureHasAPlausibleTokenAndServiceAccountCopiesForEachPort() throws {
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        #expect(FCMClient.isPlausibleRegistrationToken(fixture.fcmToken))
        #expect(fixture.fcmToken.count == 163 && fixture.fcmToken.contains(":APA91b"))
        let original = try FCMServiceAccount(contentsOfFile: fixture.fcmServiceAccountFile.path)
        let file = try fixture.fcmServiceAccount(tokenURI: "https://127.0.0.1:40124/token", name: "http2")
        let copy = try FCMServiceAccount(contentsOfFile: file.path)
        #expect(copy.tokenURI == "https://127.0.0.1:40124/token")
        #expect(copy.projectID == BenchmarkFixture.fcmProjectID)
        #expect(copy.clientEmail == original.clientEmail && copy.privateKeyID == original.privateKeyID)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The ringer value is the VoIP push body as the server encodes it, for the callee.
        let ringer = try #require(
            try JSONSerialization.jsonObject(with: Data(fixture.fcmRinger.utf8)) as? [String: Any])
        #expect(ringer["call_id"] as? String == fixture.fcmCollapseKey)
        #expect(ringer["callee_id"] as? String == "bob" && ringer["type"] as? String == "call.incoming")
        #expect(try String(contentsOf: fixture.fcmRingerFile, encoding: .utf8) == fixture.fcmRinger)
    }

    @Test func workloadRefusesNonsense() throws {
        #expect(throws: BenchmarkError.self) { try PushWorkload(pushes: 0, concurrency: 1) }
        #expect(throws: BenchmarkError.self) { try PushWorkload(pushes: 10, concurrency: 0) }
        #expect(try PushWorkload(pushes: 10, concurrency: 200).concurrency == 10)
    }
}
