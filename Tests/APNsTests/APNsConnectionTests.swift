import APNs
import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import RingerWire
import Testing

/// The real ``APNsClient`` (HTTP2Client on nghttp2 underneath) against the sandbox's connection faults: GOAWAY, a stream
/// limit down to 1, connections that close mid-flight or never answer, slow answers. The sandbox counts what
/// it accepted per `apns-id`, so a lost push (0) and a duplicate (2) both show.
@Suite(.serialized) struct APNsConnectionTests {
    /// Every push answered 200 and accepted exactly once by the sandbox.
    private static func expectEachDeliveredOnce(
        _ results: [(apnsID: String, outcome: Result<APNsResponse, any Error>)],
        by fixture: SandboxFixture, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (apnsID, outcome) in results {
            switch outcome {
            case .success(let response):
                #expect(response.status == 200, "\(apnsID)", sourceLocation: sourceLocation)
                #expect(response.apnsID == apnsID, sourceLocation: sourceLocation)
            case .failure(let error):
                Issue.record("push \(apnsID) failed: \(error)", sourceLocation: sourceLocation)
            }
            #expect(fixture.sandbox.acceptedCount(apnsID: apnsID) == 1, "\(apnsID)", sourceLocation: sourceLocation)
        }
    }

    @Test("GOAWAY: streams above last-stream-id are resent on a new connection, none lost, none twice")
    func goAwayResendsOnlyUnprocessedStreams() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.connectionsPerHost = 1 }
            defer { client.shutdown() }
            // Warm up so the burst below multiplexes on one connection.
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            // Hold each push a little so many streams are open when the GOAWAY comes.
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 0.2), count: nil))
            fixture.sandbox.inject(.goAway(afterStreams: 11, connections: 1))
            let results = await fixture.sendMany(60, through: client)
            Self.expectEachDeliveredOnce(results, by: fixture)
            // The 10 streams up to last-stream-id reached the sandbox once; the 50 above it were refused unseen
            // and reached it once on the new connection.
            #expect(fixture.sandbox.statistics.pushRequests == 61)
            #expect(fixture.sandbox.statistics.connections == 2)
        }
    }

    @Test("GOAWAY below every open stream: the refused push is resent once on a new connection")
    func goAwayRefusingEverythingIsResentOnce() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client()
            defer { client.shutdown() }
            fixture.sandbox.inject(.goAway(afterStreams: 0, connections: 1))
            let push = fixture.voipPush()
            let (response, attempts) = try await client.send(push, to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
            #expect(attempts == 2)
            #expect(fixture.sandbox.acceptedCount(apnsID: push.apnsID.uuidString) == 1)
            #expect(fixture.sandbox.statistics.connections == 2)
        }
    }

    @Test("A host that answers every connection with GOAWAY at once gets a few spaced reconnects, not a storm")
    func goAwayOnEveryConnectionBacksOff() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client {
                $0.voipRequestTimeout = 3
                $0.connectionsPerHost = 1
            }
            defer { client.shutdown() }
            fixture.sandbox.inject(.goAway(afterStreams: 0, connections: nil))
            let results = await fixture.sendMany(20, through: client)
            #expect(results.allSatisfy { if case .failure = $0.outcome { true } else { false } })
            // Each connection refuses one push unseen (one stream until SETTINGS, then GOAWAY). A connection
            // that never answered counts as failed, so reconnects wait 0.1 s, 0.2 s, 0.4 s … (with jitter):
            // a handful within the 3 s deadline, where an immediate reconnect per refusal would make over a hundred.
            let connections = fixture.sandbox.statistics.connections
            #expect(connections <= 15, "connections: \(connections)")
            #expect(client.statistics(for: .sandbox).reconnectsDelayed > 0)
            #expect(fixture.sandbox.statistics.acceptedPushes == 0)
            // Once the host behaves, pushes go through again, after at most the backoff cap (5 s): an alert,
            // whose 30 s deadline outlasts it, where a 3 s VoIP deadline may not (the wait has random jitter).
            fixture.sandbox.clearFaults()
            let alert = APNsNotification(
                pushType: .alert, topic: SandboxFixture.bundleID, payload: Array(#"{"aps":{}}"#.utf8))
            let (response, _) = try await client.send(alert, to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
        }
    }

    /// One warm connection (3 s VoIP deadline, pool of 1) whose next push the sandbox never answers.
    static func withSilencedWarmConnection(_ body: (SandboxFixture, APNsClient) async throws -> Void) async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client {
                $0.voipRequestTimeout = 3
                $0.connectionsPerHost = 1
            }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            fixture.sandbox.inject(APNsSandboxFault(.neverAnswer, deviceToken: fixture.deviceToken))
            try await body(fixture, client)
        }
    }

    @Test("A push that is never answered times out with a clear error; its silent connection is replaced")
    func neverAnsweredPushTimesOutAndConnectionIsRecycled() async throws {
        try await Self.withSilencedWarmConnection { fixture, client in
            let started = ContinuousClock.now
            let error = await #expect(throws: APNsClientError.self) {
                try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            }
            let waited = ContinuousClock.now - started
            #expect(error?.isTimeout == true)
            #expect(error?.description.contains("3.0 s") == true)
            #expect(waited >= .seconds(2.9) && waited < .seconds(10))
            // The loop closes the silent connection just after failing the push: read the count once it settled.
            #expect(await eventually { client.statistics(for: .sandbox).connectionsRecycled == 1 })
            // Later pushes go through, on a new connection.
            let results = await fixture.sendMany(5, through: client)
            Self.expectEachDeliveredOnce(results, by: fixture)
            #expect(fixture.sandbox.statistics.connections == 2)
        }
    }

    @Test("A stream that never answers does not cost a connection that keeps answering others")
    func neverAnsweredPushOnABusyConnectionKeepsIt() async throws {
        try await Self.withSilencedWarmConnection { fixture, client in
            let silent = Task {
                try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            }
            #expect(await eventually { fixture.sandbox.statistics.pushRequests == 2 })
            let results = await fixture.sendMany(5, through: client)
            Self.expectEachDeliveredOnce(results, by: fixture)
            await #expect(throws: APNsClientError.self) { _ = try await silent.value }
            #expect(client.statistics(for: .sandbox).connectionsRecycled == 0)
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(fixture.sandbox.statistics.connections == 1)
        }
    }

    @Test("SETTINGS_MAX_CONCURRENT_STREAMS 1: 200 pushes in flight all delivered once; also when lowered mid-burst")
    func maxConcurrentStreamsDownToOne() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.voipRequestTimeout = 30 }
            defer { client.shutdown() }
            fixture.sandbox.inject(.maxConcurrentStreams(1))
            let limited = await fixture.sendMany(200, through: client)
            Self.expectEachDeliveredOnce(limited, by: fixture)
            // A new connection carries one stream until its first answer, so no stream is sent before the
            // client has read the server's limit: nothing is refused and no connection is lost to it.
            #expect(fixture.sandbox.statistics.refusedStreams == 0)
            #expect(fixture.sandbox.statistics.connections <= 2)

            // Back up to 1000, then down to 1 while 200 are in flight (some already on the wire are refused).
            fixture.sandbox.inject(.maxConcurrentStreams(1000))
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 0.05), count: 50))
            async let burst = fixture.sendMany(200, through: client)
            #expect(await eventually { fixture.sandbox.statistics.pushRequests >= 210 })
            fixture.sandbox.inject(.maxConcurrentStreams(1))
            let changed = await burst
            Self.expectEachDeliveredOnce(changed, by: fixture)
            #expect(fixture.sandbox.statistics.acceptedPushes == 400)
        }
    }

    @Test("Connection closed mid-flight: every push resent once on a new connection, same apns-id, none twice")
    func connectionClosedMidFlight() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.connectionsPerHost = 1 }
            defer { client.shutdown() }
            _ = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 30), count: nil))
            async let burst = fixture.sendMany(30, through: client)
            #expect(await eventually { fixture.sandbox.statistics.pushRequests == 31 })
            // The 30 are held unanswered; cutting the connection cancels them before they are accepted.
            fixture.sandbox.clearFaults()
            fixture.sandbox.inject(.closeNow)
            let results = await burst
            Self.expectEachDeliveredOnce(results, by: fixture)
            #expect(fixture.sandbox.statistics.connections == 2)
            // Each of the 30 reached the server exactly twice: sent, then resent once after the cut. Which layer
            // resent a given push varies with timing (libcurl itself resends a request whose connection died
            // before it could write it; HTTP2Client resends the rest), so the server's count is the check and
            // HTTP2Client's own count is only bounded.
            #expect(fixture.sandbox.statistics.pushRequests == 61)
            #expect(client.statistics(for: .sandbox).requestsRetried <= 30)
        }
    }

    @Test("A host that drops every connection is reconnected to with backoff, not in a loop")
    func reconnectsBackOff() async throws {
        try await SandboxFixture.with { fixture in
            // One connection, so the count below is one backoff's (each connection of a pool has its own).
            let client = try fixture.client {
                $0.voipRequestTimeout = 2
                $0.connectionsPerHost = 1
            }
            defer { client.shutdown() }
            fixture.sandbox.inject(.close(afterStreams: 0, connections: nil))
            // 30 pushes over 3 s; each would cost two connections (send and resend) without a backoff.
            var sends: [Task<Void, any Error>] = []
            for _ in 0..<30 {
                let push = fixture.voipPush()
                let token = fixture.deviceToken
                sends.append(Task { _ = try await client.send(push, to: token, environment: .sandbox) })
                try await Task.sleep(for: .milliseconds(100))
            }
            var failures = 0
            for send in sends {
                do { try await send.value } catch { failures += 1 }
            }
            let connections = fixture.sandbox.statistics.connections
            #expect(failures == 30)
            #expect(connections <= 15, "connections: \(connections)")
            #expect(client.statistics(for: .sandbox).reconnectsDelayed > 0)
            // Once the host behaves, pushes go through again (after at most the backoff cap, 5 s).
            fixture.sandbox.clearFaults()
            let alert = APNsNotification(
                pushType: .alert, topic: SandboxFixture.bundleID, payload: Array(#"{"aps":{}}"#.utf8))
            let (response, _) = try await client.send(alert, to: fixture.deviceToken, environment: .sandbox)
            #expect(response.status == 200)
        }
    }

    @Test("Delay fault: an answer slower than the deadline times out, a faster one succeeds")
    func delayedAnswers() async throws {
        try await SandboxFixture.with { fixture in
            let client = try fixture.client { $0.voipRequestTimeout = 3 }
            defer { client.shutdown() }
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 0.5)))
            let (fast, _) = try await client.send(fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox)
            #expect(fast.status == 200)
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 6)))
            let slow = fixture.voipPush()
            let error = await #expect(throws: APNsClientError.self) {
                try await client.send(slow, to: fixture.deviceToken, environment: .sandbox)
            }
            #expect(error?.isTimeout == true)
            #expect(fixture.sandbox.acceptedCount(apnsID: slow.apnsID.uuidString) == 0)
            // The ring deadline caps the request deadline too.
            fixture.sandbox.inject(APNsSandboxFault(.delay(seconds: 6)))
            let started = ContinuousClock.now
            await #expect(throws: APNsClientError.self) {
                try await client.send(
                    fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox,
                    deadline: Date().addingTimeInterval(0.5))
            }
            #expect(ContinuousClock.now - started < .seconds(2.5), "the ring deadline, not the 3 s request deadline")
            await #expect(throws: APNsClientError.deadlinePassed) {
                try await client.send(
                    fixture.voipPush(), to: fixture.deviceToken, environment: .sandbox,
                    deadline: Date().addingTimeInterval(-1))
            }
        }
    }
}
