import Foundation
import HTTPTypes
import LibWebSockets
import RingerSync
import RingerTestSupport
import Testing

/// A peer that vanished must not keep its socket (and its "online" status) forever.
@Suite struct WebSocketKeepaliveTests {
    @Test func silentPeerIsPingedThenHungUp() async throws {
        let delegate = RecordingDelegate()
        var configuration = WebServer.Configuration(webSocketPaths: ["/ws"])
        configuration.webSocketPingSeconds = 1
        let server = WebServer(configuration: configuration) { _ in .empty(status: 404) } webSocketHandler: { _, _ in
            .accept(delegate)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let result = try await ChildProcess.run(["python3", PeerScripts.path("ws_silent_peer.py"), String(port), "/ws", "30"])
        let report = try #require(jsonObject(result.standardOutput), "peer said: \(result.standardError)")
        #expect(report["upgraded"] as? Bool == true)
        #expect(report["pinged"] as? Bool == true)
        #expect(report["closed"] as? Bool == true)
        #expect((report["seconds"] as? Double ?? 99) < 25)
        #expect(await eventually { delegate.closeCount.snapshot == 1 })
    }
}
