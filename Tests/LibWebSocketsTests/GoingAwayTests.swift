import Foundation
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

@testable import LibWebSockets

/// Shutdown tells every open WebSocket why it ends: a close frame, 1001 Going Away by default (RFC 6455 §7.4.1),
/// written before the TCP connection goes, within a bound; checked against the Python `websockets` client.
@Suite struct GoingAwayTests {
    /// Opens `count` sockets with `ws_goodbye_peer.py`, runs `stop` once all are open, and returns the peer's report.
    private func goodbyes(
        port: Int, path: String, count: Int, whenOpen stop: () async throws -> Void
    ) async throws
        -> GoodbyePeer.Report
    {
        let (opened, report) = try await GoodbyePeer.run(
            url: "ws://127.0.0.1:\(port)\(path)", count: count, whenOpen: stop)
        #expect(opened == #"{"open": \#(count), "failed": 0}"#)
        return report
    }

    @Test func openSocketsHearGoingAwayWhenTheServerStops() async throws {
        let delegate = RecordingDelegate()
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { _ in
            .empty(status: 204)
        } webSocketHandler: { _, _ in
            .accept(delegate)
        }
        let port = try server.start()
        var seconds = 0.0
        let report = try await goodbyes(port: port, path: "/ws", count: 50) {
            let started = Date()
            server.shutdown()
            seconds = Date().timeIntervalSince(started)
        }
        #expect(report.stillOpen == 0)
        #expect(report.closes == Array(repeating: .init(code: 1001, reason: "server shutting down"), count: 50))
        #expect(delegate.closeCount.snapshot == 50)
        // Every peer answered at once, so the loop stopped well before the 2 s bound.
        #expect(seconds < WebServer.goingAwaySeconds, "shutdown took \(seconds) s")
    }

    @Test func shutdownSendsTheCodeAndReasonItIsGivenAfterTheQueuedMessages() async throws {
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { _ in
            .empty(status: 204)
        } webSocketHandler: { _, connection in
            connection.send(text: "welcome")
            return .accept(RecordingDelegate())
        }
        let port = try server.start()
        let report = try await goodbyes(port: port, path: "/ws", count: 3) {
            server.shutdown(closingWebSocketsWith: 4000, reason: "maintenance", within: 5)
        }
        #expect(report.closes == Array(repeating: .init(code: 4000, reason: "maintenance"), count: 3))
    }

    /// A socket whose peer reads nothing cannot take its close frame (a large message fills both socket buffers
    /// ahead of it): the loop waits for it no longer than the bound, and the other sockets still hear 1001.
    @Test func shutdownWaitsNoLongerThanItsBoundForASocketThatTakesNothing() async throws {
        let stuck = LockedValue<WebSocketConnection?>(nil)
        let delegate = RecordingDelegate()
        let server = WebServer(configuration: .init(webSocketPaths: ["/stuck", "/ws"])) { _ in
            .empty(status: 204)
        } webSocketHandler: { request, connection in
            if request.path == "/stuck" { stuck.withLock { $0 = connection } }
            return .accept(delegate)
        }
        let port = try server.start()
        // ws_idle_peer.py reads its sockets only when told to; it is told nothing until the server stopped.
        try await PeerProcess.with(["python3", PeerScripts.path("ws_idle_peer.py"), String(port), "/stuck", "1"]) {
            idle in
            #expect(idle.firstLine == #"{"open": 1, "failed": 0}"#)
            let connection = try #require(stuck.snapshot)
            connection.send(text: String(repeating: "x", count: 32 << 20))
            var seconds = 0.0
            let report = try await goodbyes(port: port, path: "/ws", count: 5) {
                let started = Date()
                server.shutdown(within: 1)
                seconds = Date().timeIntervalSince(started)
            }
            #expect(report.closes == Array(repeating: .init(code: 1001, reason: "server shutting down"), count: 5))
            #expect(seconds >= 0.9 && seconds < 3, "shutdown took \(seconds) s")
            #expect(delegate.closeCount.snapshot == 6)
        }
    }

    /// The close frame goes out at once, and the socket stays open for the peer's reply (closing thousands of
    /// sockets would hold up the frames still to be written); a peer that never replies is closed at the bound.
    @Test func aPeerThatNeverAnswersTheCloseStillGetsItsFrameAndIsClosedAtTheBound() async throws {
        let delegate = RecordingDelegate()
        let opened = LockedValue(0)
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { _ in
            .empty(status: 204)
        } webSocketHandler: { _, _ in
            opened.withLock { $0 += 1 }
            return .accept(delegate)
        }
        let port = try server.start()
        async let silent = ChildProcess.run([
            "python3", PeerScripts.path("ws_silent_peer.py"), String(port), "/ws", "20",
        ])
        #expect(await eventually { opened.snapshot == 1 })
        try await Task.sleep(for: .milliseconds(200))  // the 101 is on its way: the socket is established
        let started = Date()
        server.shutdown(within: 1)
        let seconds = Date().timeIntervalSince(started)
        let result = try #require(jsonObject(try await silent.standardOutput))
        #expect(result["close_code"] as? Int == 1001)
        #expect(result["closed"] as? Bool == true)
        #expect(seconds >= 0.9 && seconds < 3, "shutdown took \(seconds) s")
        #expect(delegate.closeCount.snapshot == 1)
    }

    @Test func connectionsAfterTheShutdownBeganAreRefused() async throws {
        let server = WebServer(configuration: .init(webSocketPaths: ["/stuck"])) { _ in
            .empty(status: 204)
        } webSocketHandler: { _, connection in
            connection.send(text: String(repeating: "x", count: 32 << 20))
            return .accept(RecordingDelegate())
        }
        let port = try server.start()
        try await PeerProcess.with(["python3", PeerScripts.path("ws_idle_peer.py"), String(port), "/stuck", "1"]) {
            idle in
            #expect(idle.firstLine == #"{"open": 1, "failed": 0}"#)
            // The stuck socket holds the loop in its graceful phase for 3 s; the listener is closed meanwhile.
            let stopped = Task.detached { server.shutdown(within: 3) }
            try await Task.sleep(for: .milliseconds(500))
            let late = try await ChildProcess.run(["curl", "-sS", "-m", "2", "http://127.0.0.1:\(port)/"])
            #expect(late.status == 7, "curl: \(late.standardError)")  // 7: could not connect (refused)
            await stopped.value
        }
    }
}

/// The graceful phase as a pure value: every socket open at the start is asked once, in batches, and the loop
/// may stop when all closed or at the bound.
@Suite struct GoingAwayPhaseTests {
    private func phase(_ sockets: [UInt64], within: Int = 20, batch: Int = 2) -> GoingAwayPhase {
        GoingAwayPhase(
            sockets: sockets, status: .checked(code: 1001, reason: "bye"), now: 100, within: within,
            batchSize: batch)
    }

    @Test func socketsAreAskedOnceInBatches() {
        var going = phase([1, 2, 3, 4, 5])
        #expect(Array(going.nextBatch()) == [1, 2])
        #expect(going.hasUnasked)
        #expect(Array(going.nextBatch()) == [3, 4])
        #expect(Array(going.nextBatch()) == [5])
        #expect(!going.hasUnasked)
        #expect(going.nextBatch().isEmpty)
    }

    @Test func overWhenEverySocketClosedOrAtTheBound() {
        var going = phase([1, 2, 3])
        #expect(!going.isOver(at: 100))
        going.closed(1)
        going.closed(3)
        going.closed(99)  // not counted at the start: ignored
        #expect(going.openCount == 1)
        #expect(!going.isOver(at: 119))
        #expect(going.isOver(at: 120))
        going.closed(2)
        #expect(going.isOver(at: 101))
    }

    @Test func noSocketsOrNoTimeMeansOverAtOnce() {
        #expect(phase([]).isOver(at: 100))
        #expect(phase([1], within: 0).isOver(at: 100))
        #expect(phase([1], within: -5).isOver(at: 100))
    }

    @Test func closeStatusIsMadeValid() {
        let long = String(repeating: "é", count: 100)
        let status = WebSocketOutbox.CloseStatus.checked(code: 999, reason: long)
        #expect(status.code == 1000)
        #expect(status.reason == Array(String(repeating: "é", count: 61).utf8))  // 122 bytes: no half character
        #expect(WebSocketOutbox.CloseStatus.checked(code: 1001, reason: "x").code == 1001)
        #expect(WebSocketOutbox.CloseStatus.checked(code: 5000, reason: "").code == 1000)
    }
}
