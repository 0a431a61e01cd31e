import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// The WebSocket client against the Python `websockets` server and against WebServer.
@Suite struct WebSocketClientTests {
    /// Collects what a client's callbacks deliver.
    final class Inbox: Sendable {
        let texts = LockedValue<[String]>([])
        let closes = LockedValue(0)
        var onText: @Sendable (String) -> Void { { [texts] text in texts.withLock { $0.append(text) } } }
        let closeFrames = LockedValue<[String]>([])
        var onClose: @Sendable (UInt16, String) -> Void {
            { [closes, closeFrames] code, reason in
                closes.withLock { $0 += 1 }
                closeFrames.withLock { $0.append("\(code) \(reason)") }
            }
        }
    }

    /// Runs `body` with Tests/Peers/ws_server_peer.py listening on the port it reports, then stops the peer.
    private func withPythonServer(_ extra: [String] = [], _ body: (Int) async throws -> Void) async throws {
        try await PeerProcess.with(
            ["python3", PeerScripts.path("ws_server_peer.py"), "--lifetime", "60"] + extra,
            timeout: 15
        ) { peer in
            guard let port = jsonObject(peer.firstLine)?["port"] as? Int else {
                throw TestSupportError.setup("ws_server_peer did not report its port")
            }
            try await body(port)
        }
    }

    @Test func talksToThePythonServerWithHeadersPathAndQuery() async throws {
        try await withPythonServer { port in
            let inbox = Inbox()

            let client = try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/events?device_id=d%201&since=3",
                headers: ["Authorization": "Bearer abc", "X-Device": "phone-1"],
                onText: inbox.onText, onClose: inbox.onClose)
            for index in 0..<20 { client.send(text: "m\(index)") }
            #expect(await eventually { inbox.texts.snapshot.count == 21 })

            let texts = inbox.texts.snapshot
            let handshake = try #require(texts.first.flatMap(jsonObject))
            #expect(handshake["path"] as? String == "/v1/events?device_id=d%201&since=3")
            let headers = try #require(handshake["headers"] as? [String: String])
            #expect(headers["authorization"] == "Bearer abc")
            #expect(headers["x-device"] == "phone-1")
            #expect(headers["host"] == "127.0.0.1:\(port)")
            #expect(Array(texts.dropFirst()) == (0..<20).map { "echo:m\($0)" })

            client.close()
            #expect(await eventually { inbox.closes.snapshot == 1 })
            #expect(!client.isOpen)
        }
    }

    @Test func secureConnectionWithCAFile() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        try await withPythonServer(["--cert", certificates.serverCertificate, "--key", certificates.serverKey]) {
            port in
            let inbox = Inbox()

            let client = try await WebSocketClient.connect(
                url: "wss://localhost:\(port)/secure",
                caFile: certificates.caFile,
                onText: inbox.onText, onClose: inbox.onClose)
            client.send(text: "over tls")
            #expect(await eventually { inbox.texts.snapshot.count == 2 })
            #expect(inbox.texts.snapshot.last == "echo:over tls")
            client.close()
            #expect(await eventually { inbox.closes.snapshot == 1 })
        }
    }

    @Test func untrustedCertificateFails() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        try await withPythonServer(["--cert", certificates.serverCertificate, "--key", certificates.serverKey]) {
            port in
            await #expect(throws: LibWebSocketsError.connectFailed) {
                _ = try await WebSocketClient.connect(url: "wss://localhost:\(port)/", onText: { _ in })
            }
        }
    }

    @Test func talksToOurOwnServerInOrder() async throws {
        let delegate = RecordingDelegate { connection, text in connection.send(text: "re:" + text) }
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { _ in
            .empty(status: 404)
        } webSocketHandler: { request, _ in
            request.headers["authorization"] == "Bearer k" ? .accept(delegate) : .reject(status: 401)
        }
        let port = try server.start()
        defer { server.shutdown() }
        let inbox = Inbox()

        let client = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/ws",
            headers: ["authorization": "Bearer k"],
            onText: inbox.onText, onClose: inbox.onClose)
        let big = String(repeating: "z", count: 70_000)
        for index in 0..<30 { client.send(text: "n\(index)") }
        client.send(text: big)
        #expect(await eventually { inbox.texts.snapshot.count == 31 })
        #expect(Array(inbox.texts.snapshot.prefix(30)) == (0..<30).map { "re:n\($0)" })
        #expect(inbox.texts.snapshot.last == "re:" + big)
        client.close()
        #expect(await eventually { inbox.closes.snapshot == 1 && delegate.closeCount.snapshot == 1 })

        await #expect(throws: LibWebSocketsError.connectFailed) {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/ws", onText: { _ in })
        }
    }

    @Test func closedPortFailsQuicklyWithAnError() async throws {
        // Bind and release a port so that nothing listens there.
        let probe = WebServer(configuration: .init()) { _ in .empty(status: 204) }
        let port = try probe.start()
        probe.shutdown()

        let started = Date()
        do {
            _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/", onText: { _ in })
            Issue.record("connect to a closed port succeeded")
        } catch let error as LibWebSocketsError {
            #expect(error == .connectFailed)
            #expect(!error.detail.isEmpty)
        }
        #expect(Date().timeIntervalSince(started) < 15, "refused at once, not after a connect timeout")
    }

    /// Opens a socket to the Python server, then sends it `command` (nil: closes it from this side once
    /// the server's first frame arrived); returns each close `onClose` reported, as "code reason".
    private func closesReported(after command: String?) async throws -> [String] {
        var reported: [String] = []
        try await withPythonServer { port in
            let inbox = Inbox()
            let client = try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/", onText: inbox.onText,
                onClose: inbox.onClose)
            #expect(await eventually { inbox.texts.snapshot.count == 1 })
            if let command { client.send(text: command) } else { client.close() }
            #expect(await eventually { inbox.closes.snapshot == 1 })
            reported = inbox.closeFrames.snapshot
        }
        return reported
    }

    @Test func theServersCloseCodeAndReasonReachOnClose() async throws {
        #expect(
            try await closesReported(after: "close:4001:replaced by a newer connection of this device")
                == ["4001 replaced by a newer connection of this device"])
    }

    @Test func aConnectionDroppedWithoutACloseFrameReports1006() async throws {
        #expect(try await closesReported(after: "drop") == ["1006 "])
    }

    @Test func closingFirstReportsTheCodeThisClientSent() async throws {
        #expect(try await closesReported(after: nil) == ["1000 "])
    }

    @Test func aRefusedUpgradeCarriesTheHTTPStatus() async throws {
        try await withPythonServer { port in
            for status in [401, 429] {
                do {
                    _ = try await WebSocketClient.connect(
                        url: "ws://127.0.0.1:\(port)/status/\(status)", onText: { _ in })
                    Issue.record("an upgrade refused with \(status) opened")
                } catch let error as LibWebSocketsError {
                    #expect(error == .connectFailed)
                    #expect(error.httpStatus == status, "\(error)")
                }
            }
        }
    }

    @Test func malformedURLsAreRejected() async throws {
        for url in ["http://127.0.0.1/", "ws://", "not a url", "ws://host:99999/"] {
            await #expect(throws: LibWebSocketsError.invalidURL) {
                _ = try await WebSocketClient.connect(url: url, onText: { _ in })
            }
        }
    }
}
