import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// A started server on `/ws` that PINGs after 1 s of silence, with the delegate that hears its sockets.
private func pingingServer() throws -> (WebServer, RecordingDelegate, Int) {
    let delegate = RecordingDelegate()
    var configuration = WebServer.Configuration(webSocketPaths: ["/ws"])
    configuration.webSocketPingSeconds = 1
    let server = WebServer(configuration: configuration) { _ in
        .empty(status: 404)
    } webSocketHandler: { _, _ in
        .accept(delegate)
    }
    return (server, delegate, try server.start())
}

/// A peer that vanished must not keep its socket (and its "online" status) forever.
@Suite struct WebSocketKeepaliveTests {
    @Test func silentPeerIsPingedThenHungUp() async throws {
        let (server, delegate, port) = try pingingServer()
        defer { server.shutdown() }
        let result = try await ChildProcess.run([
            "python3", PeerScripts.path("ws_silent_peer.py"), String(port), "/ws", "30",
        ])
        let report = try #require(jsonObject(result.standardOutput), "peer said: \(result.standardError)")
        #expect(report["upgraded"] as? Bool == true)
        #expect(report["pinged"] as? Bool == true)
        #expect(report["closed"] as? Bool == true)
        #expect((report["seconds"] as? Double ?? 99) < 25)
        #expect(await eventually { delegate.closeCount.snapshot == 1 })
    }
}

/// A live peer answers each PING with a PONG and so keeps its socket past twice the PING interval.
@Suite struct WebSocketPongTests {
    @Test func peerThatAnswersPingsIsNotHungUp() async throws {
        let (server, _, port) = try pingingServer()
        defer { server.shutdown() }
        // The websockets library answers PINGs by itself, echoing their payload (RFC 6455 §5.5.3); it sends
        // nothing else, so only PONGs keep the socket open for 4.5 s, over four PING intervals.
        let result = try await ChildProcess.run([
            "python3", PeerScripts.path("ws_client_peer.py"), "--url",
            "ws://127.0.0.1:\(port)/ws", "--expect", "1", "--timeout", "4.5",
        ])
        let report = try #require(jsonObject(result.standardOutput), "peer said: \(result.standardError)")
        #expect(report["connected"] as? Bool == true)
        #expect(report["closed_by_server"] as? Bool == false)
        #expect(report["timeout"] as? Bool == true)
    }
}
