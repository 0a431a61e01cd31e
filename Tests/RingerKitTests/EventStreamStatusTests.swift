import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// The event stream tells the app when it is connected, lost (with the wait before the next attempt),
/// restored and closed, and resumes after the last `seq` it saw.
@Suite struct EventStreamStatusTests {
    /// A WebSocket transport whose sockets the test can drop, and which can refuse connections.
    final class DroppableSockets: WebSocketTransport, @unchecked Sendable {
        // @unchecked: every field is guarded by `lock`.
        private let lock = NSLock()
        private var closers: [@Sendable (WebSocketClose) -> Void] = []
        private var receivers: [@Sendable (String) -> Void] = []
        private var opened: [URL] = []
        private var refusals = 0
        private var refusalStatus: Int?
        private var attempts = 0

        var urls: [URL] { lock.withLock { opened } }
        /// Connection attempts, refused ones included.
        var connects: Int { lock.withLock { attempts } }

        /// Refuses the next `count` attempts: with an HTTP status at the upgrade, or as an unreachable host.
        func refuseNext(_ count: Int, status: Int? = nil) {
            lock.withLock {
                refusals = count
                refusalStatus = status
            }
        }

        func connect(
            url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
            onClose: @escaping @Sendable (WebSocketClose) -> Void
        ) async throws -> any WebSocketChannel {
            let refused = lock.withLock { () -> (Bool, Int?) in
                attempts += 1
                guard refusals == 0 else {
                    refusals -= 1
                    return (true, refusalStatus)
                }
                closers.append(onClose)
                receivers.append(onText)
                opened.append(url)
                return (false, nil)
            }
            if refused.0, let status = refused.1 { throw WebSocketUpgradeRefused(status: status) }
            if refused.0 { throw URLError(.cannotConnectToHost) }
            return Channel(onClose: onClose)
        }

        /// The newest socket drops without a close frame.
        func drop() { close(with: .abnormal) }

        /// The server closes the newest socket with this close frame.
        func close(with close: WebSocketClose) { lock.withLock { closers.last }?(close) }

        /// The newest socket receives a frame.
        func send(_ text: String) { lock.withLock { receivers.last }?(text) }

        struct Channel: WebSocketChannel {
            let onClose: @Sendable (WebSocketClose) -> Void
            func close() { onClose(.normal) }
        }
    }

    final class Statuses: Sendable {
        private let values = LockedValue<[EventStream.Status]>([])
        var all: [EventStream.Status] { values.snapshot }
        func append(_ status: EventStream.Status) { values.withLock { $0.append(status) } }

        /// The statuses with the retry delays left out, for comparison.
        var kinds: [String] {
            all.map { status in
                switch status {
                case .connected: "connected"
                case .lost: "lost"
                case .restored: "restored"
                case .closed: "closed"
                case .replaced: "replaced"
                case .unauthorized: "unauthorized"
                case .messageTooBig: "messageTooBig"
                case .refused: "refused"
                }
            }
        }
    }

    static func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<300 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func reportsConnectedLostRestoredAndClosedAndResumesAfterTheLastSeq() async throws {
        let sockets = DroppableSockets()
        let statuses = Statuses()
        let api = RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t")
        let stream = EventStream(
            api: api, deviceID: "bob-iphone", transport: sockets, onEvent: { _ in },
            onStatus: { statuses.append($0) })
        stream.start()
        #expect(await Self.waitUntil { statuses.kinds == ["connected"] })
        let call = Call(
            callID: UUID().uuidString.lowercased(), state: .ringing, caller: Party(id: "alice"),
            callee: Party(id: "bob"), hasVideo: false, createdAt: Date(), expiresAt: Date().addingTimeInterval(30))
        sockets.send(
            String(decoding: try RingerJSON.encode(CallEvent(seq: 5, type: .callIncoming, call: call)), as: UTF8.self))
        #expect(await Self.waitUntil { stream.lastSeq == 5 })

        // The server goes away; the first attempt fails too.
        sockets.refuseNext(1)
        sockets.drop()
        #expect(await Self.waitUntil { statuses.kinds == ["connected", "lost", "lost", "restored"] })
        guard case .lost(let firstWait) = statuses.all[1], case .lost(let secondWait) = statuses.all[2] else {
            Issue.record("expected two losses: \(statuses.all)")
            return
        }
        #expect(firstWait > 0 && firstWait <= 0.25)
        #expect(secondWait >= 0.5 && secondWait <= 1, "the wait grows after a failed attempt")
        #expect(sockets.urls.last?.query?.contains("since=5") == true)

        stream.stop()
        #expect(statuses.kinds.last == "closed")
    }
}

/// `isLive` says whether live events reach the stream: from `stream.ready` until the socket goes.
@Suite struct EventStreamLiveTests {
    @Test func isLiveFromStreamReadyUntilTheSocketDropsAndAgainAfterTheNextReady() async throws {
        let sockets = EventStreamStatusTests.DroppableSockets()
        let statuses = EventStreamStatusTests.Statuses()
        let api = RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t")
        let stream = EventStream(
            api: api, deviceID: "bob-iphone", transport: sockets, onEvent: { _ in },
            onStatus: { statuses.append($0) })
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected"] })
        // Connected is not live: the server subscribes the socket and replays before it sends `stream.ready`.
        #expect(!stream.isLive)
        sockets.send(#"{"type":"stream.ready","seq":3}"#)
        #expect(await EventStreamStatusTests.waitUntil { stream.isLive })

        sockets.drop()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected", "lost", "restored"] })
        #expect(!stream.isLive, "a new socket is live only after its own stream.ready")
        sockets.send(#"{"type":"stream.ready","seq":3}"#)
        #expect(await EventStreamStatusTests.waitUntil { stream.isLive })

        stream.stop()
        #expect(!stream.isLive)
    }
}

/// `stream.ready` only moves the resume point; it never hides events.
@Suite struct EventStreamReadyTests {
    @Test func anEventAtOrBelowTheReadySeqThatArrivesAfterStreamReadyIsStillDelivered() async throws {
        let sockets = EventStreamStatusTests.DroppableSockets()
        let statuses = EventStreamStatusTests.Statuses()
        let received = LockedSeqs()
        let api = RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t")
        let stream = EventStream(
            api: api, deviceID: "bob-iphone", transport: sockets,
            onEvent: { received.append($0.seq) }, onStatus: { statuses.append($0) })
        defer { stream.stop() }
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { statuses.kinds == ["connected"] })
        // Without `since` the server goes live at its newest seq (12); an event stored just before (12)
        // was still on its way to the hub and follows the ready frame (docs/openapi.yaml: "process them").
        sockets.send(#"{"type":"stream.ready","seq":12}"#)
        let call = Call(
            callID: UUID().uuidString.lowercased(), state: .ringing, caller: Party(id: "alice"),
            callee: Party(id: "bob"), hasVideo: false, createdAt: Date(), expiresAt: Date().addingTimeInterval(30))
        sockets.send(
            String(decoding: try RingerJSON.encode(CallEvent(seq: 12, type: .callIncoming, call: call)), as: UTF8.self))
        sockets.send(
            String(decoding: try RingerJSON.encode(CallEvent(seq: 13, type: .callCancelled, call: call)), as: UTF8.self)
        )
        #expect(await EventStreamStatusTests.waitUntil { received.all == [12, 13] }, "got \(received.all)")
        #expect(stream.lastSeq == 13)
    }

    final class LockedSeqs: @unchecked Sendable {
        // @unchecked: `values` is guarded by `lock`.
        private let lock = NSLock()
        private var values: [Int64] = []
        var all: [Int64] { lock.withLock { values } }
        func append(_ seq: Int64) { lock.withLock { values.append(seq) } }
    }
}

/// The stream passes on the server's clock from `stream.ready`, and waits between reconnects on the app's
/// clock, not on its own.
@Suite struct EventStreamClockTests {
    @Test func streamReadyHandsTheServersTimeToTheApp() async throws {
        let sockets = EventStreamStatusTests.DroppableSockets()
        let times = LockedValue<[Date]>([])
        let api = RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t")
        let stream = EventStream(
            api: api, deviceID: "bob-iphone", transport: sockets, onEvent: { _ in },
            onServerTime: { time in times.withLock { $0.append(time) } })
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { sockets.urls.count == 1 })
        sockets.send(#"{"type":"stream.ready","seq":3,"server_time_ms":1767225600123}"#)
        sockets.send(#"{"type":"stream.ready","seq":4}"#)  // an older server: no time, nothing passed on
        #expect(await EventStreamStatusTests.waitUntil { stream.lastSeq == 4 })
        #expect(times.snapshot == [Date(unixMilliseconds: 1_767_225_600_123)])
        stream.stop()
    }

    @Test func reconnectWaitsGoThroughTheInjectedSleep() async throws {
        let sockets = EventStreamStatusTests.DroppableSockets()
        let waits = LockedValue<[TimeInterval]>([])
        let api = RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t")
        let stream = EventStream(
            api: api, deviceID: "bob-iphone", transport: sockets, onEvent: { _ in },
            sleep: { seconds in waits.withLock { $0.append(seconds) } }, random: { 1 })
        stream.start()
        #expect(await EventStreamStatusTests.waitUntil { sockets.urls.count == 1 })
        sockets.refuseNext(2)
        sockets.drop()
        #expect(await EventStreamStatusTests.waitUntil { sockets.urls.count == 2 })
        // Whole ceilings (random 1): 0.25 s after the drop; the retried drop counts as one failure, so the
        // failed attempts wait 1 s and 2 s.
        #expect(waits.snapshot == [0.25, 1, 2])
        stream.stop()
    }
}
