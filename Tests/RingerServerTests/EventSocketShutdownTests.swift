import Foundation
import RingerTestSupport
import Testing

/// `ringer serve` stopped by SIGTERM says goodbye on every event socket: close code 1001 Going Away
/// (RFC 6455 §7.4.1), so apps reconnect rather than treat it as a network failure (1006).
@Suite struct EventSocketShutdownTests {
    @Test func openSocketsHearGoingAwayWhenTheServerStops() async throws {
        let served = try ServedRinger(environment: ["RINGER_MAX_SOCKETS_PER_USER": "50"])
        var stopped = false
        defer { if !stopped { served.stop() } }
        #expect(await served.waitUntilHealthy())
        let token = try await served.token(for: "alice")
        let url = "ws://127.0.0.1:\(served.port)/v1/events?device_id=phone-{i}&access_token=\(token)"
        let (opened, report) = try await GoodbyePeer.run(url: url, count: 50) {
            served.stop()  // SIGTERM, then waits for the exit
            stopped = true
        }
        #expect(opened == #"{"open": 50, "failed": 0}"#)
        #expect(report.stillOpen == 0)
        #expect(report.closes == Array(repeating: .init(code: 1001, reason: "server shutting down"), count: 50))
        #expect(served.process.terminationStatus == 0)
    }

    @Test func anUpgradeWhileTheServerStopsIsRefusedWithAnUnavailableProblem() async throws {
        let served = try ServedRinger()
        defer { served.stop() }
        #expect(await served.waitUntilHealthy())
        let token = try await served.token(for: "alice")
        let result = try await ChildProcess.run([
            "python3", PeerScripts.path("ws_upgrade_while_stopping_peer.py"),
            String(served.port), String(served.process.processIdentifier), token,
        ])
        let line = try #require(result.standardOutput.split(separator: "\n").last, "\(result.standardError)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(answer["status"] as? Int == 503)
        #expect(answer["content_type"] as? String == "application/problem+json")
        #expect((answer["body"] as? String)?.contains("https://ringer.dev/problems/unavailable") == true, "\(answer)")
        served.process.waitUntilExit()
        #expect(served.process.terminationStatus == 0)
    }
}
