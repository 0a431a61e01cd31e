import APNs
import Foundation
import RingerSandbox
import RingerWire
import Testing

/// A `close` or `goaway` fault limited to N connections wears off once N connections met it: it is no longer
/// listed as in force, and injecting another connection fault does not bring it back.
@Suite(.serialized) struct SandboxConnectionFaultWearOffTests {
    @Test("A worn-off close fault is not listed and not re-armed by a later max_concurrent_streams fault")
    func wornOffCloseFaultStaysOff() async throws {
        try await SandboxFixture.with { fixture in
            fixture.sandbox.inject(.close(afterStreams: 0, connections: 1))
            let first = try fixture.client { $0.connectionsPerHost = 1 }
            defer { first.shutdown() }
            // The first connection is cut at its first stream; the push is resent on a second one.
            let (cutOnce, resent) = try await first.send(
                fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(cutOnce.status == 200)
            #expect(resent == 2)
            #expect(fixture.sandbox.activeConnectionFaults.isEmpty, "\(fixture.sandbox.activeConnectionFaults)")

            fixture.sandbox.inject(.maxConcurrentStreams(100))
            #expect(fixture.sandbox.activeConnectionFaults == [.maxConcurrentStreams(100)])
            let second = try fixture.client { $0.connectionsPerHost = 1 }
            defer { second.shutdown() }
            let (response, attempts) = try await second.send(
                fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
            #expect(attempts == 1, "the worn-off close fault cut a new connection again")
        }
    }

    @Test("A goaway fault for N connections is listed with what is left of N, and not once it wore off")
    func goAwayFaultListsWhatIsLeft() async throws {
        try await SandboxFixture.with { fixture in
            fixture.sandbox.inject(.goAway(afterStreams: 1, connections: 2))
            let client = try fixture.client { $0.connectionsPerHost = 1 }
            defer { client.shutdown() }
            // Each connection serves one push and says GOAWAY, so the next push opens a new connection.
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(fixture.sandbox.activeConnectionFaults == [.goAway(afterStreams: 1, connections: 1)])
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(fixture.sandbox.activeConnectionFaults.isEmpty, "\(fixture.sandbox.activeConnectionFaults)")
        }
    }
}
