import APNs
import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import RingerWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The per-host connection pool: its size, the independence of the two hosts, and idle connections kept
/// alive and reused.
@Suite(.serialized) struct APNsPoolTests {
    @Test("An idle connection is kept warm with HTTP/2 PING and reused, not reconnected")
    func idleConnectionIsKeptAndReused() async throws {
        try await SandboxFixture.with { fixture in
            // PINGs after 2 s of silence, each due back within 2 s (room for a busy machine).
            let client = try fixture.client { $0.keepAliveInterval = 2 }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            try await Task.sleep(for: .seconds(5))
            let statistics = client.statistics(for: .sandbox)
            #expect(statistics.pingsSent >= 2)
            #expect(statistics.connectionsRecycled == 0)  // every PING was acknowledged
            let (response, _) = try await client.send(
                fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
            #expect(fixture.sandbox.statistics.connections == 1)
            #expect(client.statistics(for: .sandbox).connectionsOpened == 1)
        }
    }

    @Test("A connection gone silent (half-open) is found by its unanswered PING and replaced before the next push")
    func silentConnectionIsFoundByPing() async throws {
        try await SandboxFixture.with { fixture in
            let proxy = try await PeerProcess.start([
                "python3", PeerScripts.path("freezing_proxy.py"), String(fixture.port),
            ])
            defer { Task { _ = await proxy.stop() } }
            let proxyPort = try #require(Int(proxy.firstLine.dropFirst("PORT ".count)))
            let client = try fixture.client {
                $0.sandboxURL = "https://localhost:\(proxyPort)"
                $0.keepAliveInterval = 1
                $0.connectionsPerHost = 1
            }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            proxy.signal(SIGUSR1)  // from now on nothing gets through, and nothing is closed
            #expect(await eventually(within: 10) { client.statistics(for: .sandbox).connectionsRecycled == 1 })
            #expect(client.statistics(for: .sandbox).pingsSent >= 1)
            proxy.signal(SIGUSR2)
            let (response, _) = try await client.send(
                fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
            #expect(client.statistics(for: .sandbox).connectionsOpened == 2)
        }
    }

    @Test("connectionIdleLifetime: past it, the idle connection is closed and the next push reconnects")
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

    @Test("Pool of 2 under a load one connection can carry: once its SETTINGS allow it, one connection takes it all")
    func oneConnectionCarriesWhatFits() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.connectionsPerHost = 2 }
            defer { client.shutdown() }
            // The first push learns the server's limit (1000 streams); everything after fits one connection.
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            let results = await fixture.sendMany(200, through: client)
            #expect(results.allSatisfy { (try? $0.outcome.get().status) == 200 })
            #expect(client.statistics(for: .sandbox).connectionsOpened == 1)
            #expect(fixture.sandbox.statistics.connections == 1)
        }
    }

    @Test("Pool of 2 when the server lowers its stream limit: what exceeds one connection spills to the second")
    func loweredStreamLimitSpillsToTheNextConnection() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.connectionsPerHost = 2 }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            fixture.sandbox.inject(.maxConcurrentStreams(2))
            // The new SETTINGS reach the open connection; its loop publishes the lower limit on its next turn.
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 2), count: 4))
            let started = ContinuousClock.now
            let results = await fixture.sendMany(4, through: client)
            let elapsed = ContinuousClock.now - started
            #expect(results.allSatisfy { (try? $0.outcome.get().status) == 200 })
            #expect(fixture.sandbox.statistics.connections == 2)
            // Four 2 s answers, two per connection at once: about 2 s; one connection would need 4 s.
            #expect(elapsed < .seconds(3.5), "\(elapsed)")
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
