import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// The WebSocket server side against the Python `websockets` client.
@Suite struct WebSocketServerTests {
    /// A server whose /v1/events accepts bearer token "good" (header or access_token query)
    /// and hands each connection to `delegate`.
    private func startServer(
        delegate: RecordingDelegate, upgrades: LockedValue<[HTTPRequest]>,
        tls: WebServer.Configuration.TLSFiles? = nil
    ) throws -> (WebServer, Int) {
        let server = WebServer(configuration: .init(tls: tls, webSocketPaths: ["/v1/events"])) { _ in
            .json(status: 404, "{}")
        } webSocketHandler: { request, _ in
            upgrades.withLock { $0.append(request) }
            return request.bearerToken == "good" ? .accept(delegate) : .reject(status: 401)
        }
        return (server, try server.start())
    }

    private func client(_ arguments: [String]) async throws -> [String: Any] {
        let result = try await ChildProcess.run(["python3", PeerScripts.path("ws_client_peer.py")] + arguments)
        return try #require(jsonObject(result.standardOutput), "peer said: \(result.standardError)")
    }

    @Test func messagesBothWaysWithHeaderAndQuery() async throws {
        let delegate = RecordingDelegate { connection, text in connection.send(text: "echo:" + text) }
        let upgrades = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startServer(delegate: delegate, upgrades: upgrades)
        defer { server.shutdown() }

        let output = try await client([
            "--url", "ws://127.0.0.1:\(port)/v1/events?device_id=dev-1&since=17",
            "--header", "Authorization: Bearer good", "--send", "hello", "--send", "wörld ✓", "--expect", "2",
        ])
        #expect(output["connected"] as? Bool == true)
        #expect(output["received"] as? [String] == ["echo:hello", "echo:wörld ✓"])
        #expect(delegate.messages.snapshot == ["hello", "wörld ✓"])
        let upgrade = try #require(upgrades.snapshot.first)
        #expect(upgrade.path == "/v1/events")
        #expect(upgrade.query == ["device_id": "dev-1", "since": "17"])
        #expect(upgrade.method == "GET")
        #expect(await eventually { delegate.closeCount.snapshot == 1 })
    }

    @Test func accessTokenQueryIsAcceptedAndMissingTokenGets401() async throws {
        let delegate = RecordingDelegate()
        let upgrades = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startServer(delegate: delegate, upgrades: upgrades)
        defer { server.shutdown() }

        let accepted = try await client(["--url", "ws://127.0.0.1:\(port)/v1/events?access_token=good"])
        #expect(accepted["connected"] as? Bool == true)
        let refused = try await client([
            "--url", "ws://127.0.0.1:\(port)/v1/events?device_id=x",
            "--header", "Authorization: Bearer bad",
        ])
        #expect(refused["connected"] as? Bool == false)
        #expect(refused["status"] as? Int == 401)
        let wrongPath = try await client(["--url", "ws://127.0.0.1:\(port)/elsewhere?access_token=good"])
        #expect(wrongPath["status"] as? Int == 404)
        #expect(await eventually { delegate.closeCount.snapshot == 1 })
    }

    @Test func pushesFromAnotherThreadArriveInOrderIncludingA100KBMessage() async throws {
        let big = String(repeating: "0123456789", count: 10_000)
        let delegate = RecordingDelegate { connection, text in
            guard text == "start" else { return }
            Thread.detachNewThread {
                for index in 0..<50 { connection.send(text: "push-\(index)") }
                connection.send(text: big)
                connection.send(text: "done")
            }
        }
        let upgrades = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startServer(delegate: delegate, upgrades: upgrades)
        defer { server.shutdown() }

        let output = try await client([
            "--url", "ws://127.0.0.1:\(port)/v1/events?access_token=good",
            "--send", "start", "--expect", "52",
        ])
        let received = try #require(output["received"] as? [String])
        #expect(received.count == 52)
        #expect(Array(received.prefix(50)) == (0..<50).map { "push-\($0)" })
        #expect(received.count > 50 && received[50] == big)
        #expect(received.last == "done")
    }

    @Test func a100KBMessageFromTheClientArrivesWhole() async throws {
        let delegate = RecordingDelegate { connection, text in connection.send(text: "length:\(text.utf8.count)") }
        let upgrades = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startServer(delegate: delegate, upgrades: upgrades)
        defer { server.shutdown() }

        let big = String(repeating: "abcdefghij", count: 10_000)
        let output = try await client([
            "--url", "ws://127.0.0.1:\(port)/v1/events?access_token=good",
            "--send", big, "--expect", "1",
        ])
        #expect(output["received"] as? [String] == ["length:100000"])
        #expect(delegate.messages.snapshot == [big])
    }

    @Test func serverCloseReachesTheClientAndTheDelegate() async throws {
        let delegate = RecordingDelegate { connection, _ in
            connection.send(text: "bye")
            connection.close()
        }
        let upgrades = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startServer(delegate: delegate, upgrades: upgrades)
        defer { server.shutdown() }

        let output = try await client([
            "--url", "ws://127.0.0.1:\(port)/v1/events?access_token=good",
            "--send", "hi", "--expect", "2",
        ])
        #expect(output["received"] as? [String] == ["bye"])
        #expect(output["closed_by_server"] as? Bool == true)
        #expect(await eventually { delegate.closeCount.snapshot == 1 })
    }

    @Test func secureWebSocketOverTLS() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let delegate = RecordingDelegate { connection, text in connection.send(text: "tls:" + text) }
        let upgrades = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startServer(
            delegate: delegate, upgrades: upgrades,
            tls: .init(certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey))
        defer { server.shutdown() }

        let output = try await client([
            "--url", "wss://localhost:\(port)/v1/events?access_token=good",
            "--cafile", certificates.caFile, "--send", "x", "--expect", "1",
        ])
        #expect(output["received"] as? [String] == ["tls:x"])
    }
}
