import Foundation
import RingerSupport
import RingerRedis
import RingerTestSupport
import Testing

@Suite struct RedisSubscriberTests {
    /// What a subscriber reported, in order.
    enum Event: Sendable, Equatable {
        case message(channel: String, payload: Data)
        case status(RedisSubscriber.Status)
    }

    private static let quickBackoff = Backoff(initialDelay: 0.05, maximumDelay: 0.2)

    private static func subscriber(
        _ url: RedisURL, channels: [String], recorder: Recorder<Event>,
        backoff: Backoff = quickBackoff, healthCheckInterval: TimeInterval = 10
    ) throws -> RedisSubscriber {
        try RedisSubscriber(
            url: url, channels: channels, connectTimeout: 2, healthCheckInterval: healthCheckInterval,
            backoff: backoff,
            onMessage: { recorder.record(.message(channel: $0, payload: $1)) },
            onStatus: { recorder.record(.status($0)) })
    }

    private static func statuses(_ recorder: Recorder<Event>) -> [RedisSubscriber.Status] {
        recorder.all.compactMap { if case .status(let status) = $0 { status } else { nil } }
    }

    private static func messages(_ recorder: Recorder<Event>) -> [Event] {
        recorder.all.filter { if case .message = $0 { true } else { false } }
    }

    @Test func publishReachesTheSubscriberWithItsBytes() async throws {
        let server = try RedisServer()
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(server.url(), channels: ["calls"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })

        let publisher = RedisConnection(url: server.url())
        let payload = Data([0x7b, 0x00, 0xff, 0x25, 0x73, 0x7d])
        #expect(try publisher.command([Data("PUBLISH".utf8), Data("calls".utf8), payload]) == .integer(1))
        #expect(try publisher.command(["PUBLISH", "other", "not for us"]) == .integer(0))
        #expect(try publisher.command(["PUBLISH", "calls", "second"]) == .integer(1))
        #expect(await eventually { Self.messages(recorder).count == 2 })
        #expect(
            Self.messages(recorder) == [
                .message(channel: "calls", payload: payload),
                .message(channel: "calls", payload: Data("second".utf8)),
            ])
    }

    @Test func channelsAddedWhileRunningReceiveAndRemovedOnesStop() async throws {
        let server = try RedisServer()
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(server.url(), channels: ["a"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })

        let publisher = RedisConnection(url: server.url())
        subscriber.subscribe(["b"])
        #expect(subscriber.channels == ["a", "b"])
        #expect(try await eventually { try publisher.command(["PUBLISH", "b", "to b"]) == .integer(1) })
        subscriber.unsubscribe(["a"])
        #expect(
            try await eventually { try publisher.command(["PUBSUB", "NUMSUB", "a"]).elements?.last == .integer(0) })
        #expect(try publisher.command(["PUBLISH", "a", "to a"]) == .integer(0))
        #expect(try publisher.command(["PUBLISH", "b", "last"]) == .integer(1))
        #expect(await eventually { Self.messages(recorder).last == .message(channel: "b", payload: Data("last".utf8)) })
        #expect(!Self.messages(recorder).contains(.message(channel: "a", payload: Data("to a".utf8))))
        // Adding channels did not count as a new connection.
        #expect(Self.statuses(recorder) == [.connected])
    }

    @Test func channelChangesTakeEffectWhileMessagesKeepArriving() async throws {
        let server = try RedisServer()
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(server.url(), channels: ["busy"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })
        let publisher = RedisConnection(url: server.url())
        let url = server.url()
        let flooding = Task.detached {
            let flooder = RedisConnection(url: url)
            while !Task.isCancelled { _ = try? flooder.command(["PUBLISH", "busy", "noise"]) }
        }
        defer { flooding.cancel() }
        // Each change wakes the thread while the socket is readable too; none may be lost.
        for index in 0..<20 {
            subscriber.subscribe(["extra-\(index)"])
            try #require(
                try await eventually(within: 2) {
                    try publisher.command(["PUBSUB", "NUMSUB", "extra-\(index)"]).elements?.last == .integer(1)
                }, "extra-\(index)")
        }
    }

    @Test func redisRestartIsReportedAsLostThenConnectedAndMessagesFlowAgain() async throws {
        let server = try RedisServer()
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(server.url(), channels: ["calls"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })
        let publisher = RedisConnection(url: server.url(), connectTimeout: 1)
        _ = try publisher.command(["PING"])

        server.stop()
        #expect(await eventually { Self.statuses(recorder).count == 2 })
        guard case .lost(let reason)? = Self.statuses(recorder).last else {
            Issue.record("after the kill: \(Self.statuses(recorder))")
            return
        }
        guard case .connectionLost = reason else {
            Issue.record("lost for \(reason)")
            return
        }
        // Several failed attempts while Redis is down, still one `lost`.
        try await Task.sleep(for: .milliseconds(500))
        #expect(Self.statuses(recorder).count == 2)

        try server.restart()
        #expect(await eventually { Self.statuses(recorder).count == 3 })
        #expect(Self.statuses(recorder).last == .connected)
        #expect(try publisher.command(["PUBLISH", "calls", "after restart"]) == .integer(1))
        #expect(
            await eventually {
                Self.messages(recorder) == [.message(channel: "calls", payload: Data("after restart".utf8))]
            })
    }

    @Test func stopReturnsPromptlyInEveryPhase() async throws {
        // Reading: connected and idle.
        let server = try RedisServer()
        let recorder = Recorder<Event>()
        let reading = try Self.subscriber(server.url(), channels: ["calls"], recorder: recorder)
        reading.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })
        var started = ContinuousClock.now
        reading.stop()
        #expect(ContinuousClock.now - started < .seconds(1))
        let publisher = RedisConnection(url: server.url())
        #expect(try await eventually { try publisher.command(["PUBLISH", "calls", "late"]) == .integer(0) })
        try await Task.sleep(for: .milliseconds(100))
        #expect(Self.messages(recorder).isEmpty)

        // Backing off: Redis down and the next attempt 30 s away.
        let downPort = try ClosedPort.freePort()
        let waitingRecorder = Recorder<Event>()
        let waiting = try Self.subscriber(
            RedisURL(port: downPort), channels: ["calls"], recorder: waitingRecorder,
            backoff: Backoff(initialDelay: 60, maximumDelay: 60))
        waiting.start()
        #expect(await eventually { Self.statuses(waitingRecorder).count == 1 })
        started = ContinuousClock.now
        waiting.stop()
        #expect(ContinuousClock.now - started < .seconds(1))

        // Logging in: a server that takes the connection and never answers AUTH.
        let silent = try ClosedPort(listening: true)
        let loggingIn = try Self.subscriber(
            RedisURL(port: silent.port, password: "pw"), channels: ["calls"],
            recorder: Recorder<Event>())
        loggingIn.start()
        try await Task.sleep(for: .milliseconds(200))
        started = ContinuousClock.now
        loggingIn.stop()
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func stopFromInsideACallbackEndsDeliveryWithoutDeadlock() async throws {
        let server = try RedisServer()
        let recorder = Recorder<Event>()
        let box = LockedValue<RedisSubscriber?>(nil)
        let subscriber = try RedisSubscriber(
            url: server.url(), channels: ["calls"], backoff: Self.quickBackoff,
            onMessage: { channel, payload in
                recorder.record(.message(channel: channel, payload: payload))
                box.snapshot?.stop()
            },
            onStatus: { recorder.record(.status($0)) })
        box.withLock { $0 = subscriber }
        defer { box.withLock { $0 = nil } }
        subscriber.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })
        let publisher = RedisConnection(url: server.url())
        // One script publishes both, so they likely arrive in one read; either way only the first is delivered.
        _ = try publisher.command([
            "EVAL", "redis.call('PUBLISH', 'calls', 'one'); return redis.call('PUBLISH', 'calls', 'two')", "0",
        ])
        #expect(
            try await eventually { try publisher.command(["PUBSUB", "NUMSUB", "calls"]).elements?.last == .integer(0) })
        #expect(Self.messages(recorder) == [.message(channel: "calls", payload: Data("one".utf8))])
        subscriber.stop()
    }

    @Test func aClosedPortIsReportedLostPromptlyWithTheReason() async throws {
        let port = try ClosedPort.freePort()
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(RedisURL(port: port), channels: ["calls"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually(within: 1) { !Self.statuses(recorder).isEmpty })
        #expect(
            Self.statuses(recorder).first
                == .lost(.cannotConnect(endpoint: "127.0.0.1:\(port)", reason: "Connection refused")))
    }

    @Test func aServerThatStopsAnsweringIsLostAfterTwoHealthCheckIntervals() async throws {
        // Takes the connection, never answers SUBSCRIBE or PING.
        let silent = try ClosedPort(listening: true)
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(
            RedisURL(port: silent.port), channels: ["calls"], recorder: recorder,
            backoff: Backoff(initialDelay: 60, maximumDelay: 60), healthCheckInterval: 0.3)
        defer { subscriber.stop() }
        let started = ContinuousClock.now
        subscriber.start()
        #expect(await eventually(within: 3) { !Self.statuses(recorder).isEmpty })
        let elapsed = ContinuousClock.now - started
        #expect(
            Self.statuses(recorder) == [
                .lost(.timeout(endpoint: "127.0.0.1:\(silent.port)", operation: "PING", seconds: 0.3))
            ])
        #expect(elapsed >= .milliseconds(550), "\(elapsed)")
    }

    @Test func wrongPasswordIsReportedAsLostWithRedisMessage() async throws {
        let server = try RedisServer(["--requirepass", "right-one"])
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(
            server.url(password: "wrong-guess"), channels: ["calls"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually { !Self.statuses(recorder).isEmpty })
        guard case .lost(.server(let message))? = Self.statuses(recorder).first else {
            Issue.record("\(Self.statuses(recorder))")
            return
        }
        #expect(message.contains("WRONGPASS") || message.contains("invalid password"))
        #expect(!"\(Self.statuses(recorder))".contains("wrong-guess"))
    }

    @Test func passwordFromTheURLLetsTheSubscriberIn() async throws {
        let server = try RedisServer(["--requirepass", "right-one"])
        let recorder = Recorder<Event>()
        let subscriber = try Self.subscriber(server.url(password: "right-one"), channels: ["calls"], recorder: recorder)
        defer { subscriber.stop() }
        subscriber.start()
        #expect(await eventually { Self.statuses(recorder) == [.connected] })
        let publisher = RedisConnection(url: server.url(password: "right-one"))
        #expect(try publisher.command(["PUBLISH", "calls", "hi"]) == .integer(1))
        #expect(await eventually { Self.messages(recorder).count == 1 })
    }
}
