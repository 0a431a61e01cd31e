import APNs
import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import Testing

/// The per-host connection pool: its size, the independence of the two hosts, and idle connections kept
/// alive and reused.
@Suite(.serialized) struct APNsPoolTests {
    /// The kernel's timer state ("tr" column of /proc/net/tcp{,6}) of every established TCP socket whose peer
    /// is `port` on loopback: 2 means the keep-alive timer is armed.
    private static func timersOfConnections(toPort port: Int) -> [Int] {
        let hexPort = String(format: ":%04X", port)
        var timers: [Int] = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // /proc files report size 0, so read to end of file rather than by size.
            guard let data = FileHandle(forReadingAtPath: file)?.readDataToEndOfFile() else { continue }
            let table = String(decoding: data, as: UTF8.self)
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when ...
                guard fields.count > 5, fields[2].hasSuffix(hexPort), fields[3] == "01",
                      let timer = Int(fields[5].prefix { $0 != ":" }, radix: 16) else { continue }
                timers.append(timer)
            }
        }
        return timers
    }

    @Test("An idle connection keeps TCP keep-alive probes armed and is reused, not reconnected")
    func idleConnectionIsKeptAndReused() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.keepAliveInterval = 1 }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            try await Task.sleep(for: .seconds(3))
            #expect(Self.timersOfConnections(toPort: fixture.port) == [2])
            let (response, _) = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
            #expect(fixture.sandbox.statistics.connections == 1)
            #expect(client.statistics(for: .sandbox).connectionsOpened == 1)
        }
    }

    @Test("connectionIdleLifetime: past it, libcurl drops the idle connection and the next push reconnects")
    func idleLifetimeIsHonoured() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.connectionIdleLifetime = 1 }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            try await Task.sleep(for: .seconds(2.5))
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(fixture.sandbox.statistics.connections == 2)
        }
    }

    @Test("Pool of 2 with one stream per connection: two connections work in parallel, never a third")
    func poolSizeBoundsConnections() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.connectionsPerHost = 2 }
            defer { client.shutdown() }
            fixture.sandbox.inject(.maxConcurrentStreams(1))
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 1), count: 6))
            let started = ContinuousClock.now
            let results = await fixture.sendMany(6, through: client)
            let elapsed = ContinuousClock.now - started
            #expect(results.allSatisfy { (try? $0.outcome.get().status) == 200 })
            #expect(fixture.sandbox.statistics.connections == 2)
            // Six 1 s answers, two at a time: about 3 s; one connection would need 6 s (margin for a busy CI).
            #expect(elapsed < .seconds(5.5), "\(elapsed)")
        }
    }

    @Test("Sandbox and production hosts have their own connections and counters")
    func hostsAreIndependent() async throws {
        try await SandboxFixture.with { fixture in
            // The same sandbox under another name plays the production host.
            let client = try fixture.client { $0.productionURL = "https://127.0.0.1:\(fixture.port)" }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(client.statistics(for: .production).connectionsOpened == 0)
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .production)
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(client.statistics(for: .sandbox).connectionsOpened == 1)
            #expect(client.statistics(for: .production).connectionsOpened == 1)
            #expect(fixture.sandbox.statistics.connections == 2)
            #expect(fixture.sandbox.statistics.acceptedPushes == 3)
        }
    }
}
