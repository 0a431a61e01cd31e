import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// The server against a hostile HTTP/1.1 and WebSocket peer on raw sockets (Tests/Peers/http_hostile_peer.py):
/// trickling bodies, pipelined writes, oversized heads, broken targets, unknown methods, unmasked frames, floods.
@Suite struct HostilePeerTests {
    private func peer(_ arguments: [String], timeout: Double = 30) async throws -> [String: Any] {
        let result = try await ChildProcess.run(
            ["python3", PeerScripts.path("http_hostile_peer.py")] + arguments,
            timeout: timeout)
        return try #require(jsonObject(result.standardOutput), "peer said: \(result.standardError)")
    }

    /// Sends `request` in one write and returns what came back and whether the server closed.
    private func raw(_ port: Int, _ request: String, seconds: Double = 3) async throws -> (data: String, closed: Bool) {
        // A Python bytes literal: repr-style escapes for CR and LF only (the requests here are ASCII).
        let literal =
            "b'"
            + request.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n") + "'"
        let output = try await peer(["raw", "\(port)", literal, "\(seconds)"])
        return (output["data"] as? String ?? "", output["closed"] as? Bool == true)
    }

    /// A started server answering `{}` to every request, and the count of requests its handler saw.
    private func countingServer(_ configuration: WebServer.Configuration) throws -> (WebServer, Int, LockedValue<Int>) {
        let handled = LockedValue(0)
        let server = WebServer(configuration: configuration) { _ in
            handled.withLock { $0 += 1 }
            return .json("{}")
        }
        return (server, try server.start(), handled)
    }

    @Test func aTricklingBodyIsCutAtTheRequestDeadline() async throws {
        var configuration = WebServer.Configuration()
        configuration.requestDeadlineSeconds = 2
        configuration.requestTimeoutResponse = .json(status: 408, #"{"title":"Request timeout"}"#)
        let (server, port, handled) = try countingServer(configuration)
        defer { server.shutdown() }

        // One byte every 0.5 s: lws' own body timeout (30 s, re-armed per byte) would never fire.
        let output = try await peer(["trickle", "\(port)", "/upload", "0.5", "15"])
        let data = output["data"] as? String ?? ""
        let elapsed = output["elapsed"] as? Double ?? 99
        #expect(data.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(data)")
        #expect(data.contains("connection: close"))
        #expect(data.hasSuffix(#"{"title":"Request timeout"}"#))
        #expect(elapsed >= 1.8 && elapsed < 6, "answered after \(elapsed) s")
        #expect(handled.snapshot == 0)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOrRefusedBeforeActing() async throws {
        let posts = LockedValue(0)
        let gets = LockedValue(0)
        let server = WebServer(configuration: .init()) { request in
            if request.method == "POST" {
                posts.withLock { $0 += 1 }
                // Still computing when the pipelined GET is parsed.
                try? await Task.sleep(for: .milliseconds(200))
                return .json(status: 201, #"{"created":true}"#)
            }
            gets.withLock { $0 += 1 }
            return .json(#"{"got":true}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }

        let body = #"{"callee":"bob"}"#
        let (data, closed) = try await raw(
            port,
            "POST /v1/calls HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)GET /v1/calls HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(data.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(data)")
        #expect(data.contains(#"{"created":true}"#))
        #expect(posts.snapshot == 1)
        // Either the GET is answered after the POST, or it never ran and the connection closed saying so.
        if gets.snapshot == 1 {
            #expect(data.contains("HTTP/1.1 200 OK\r\n"))
        } else {
            #expect(gets.snapshot == 0)
            #expect(data.contains("connection: close"))
            #expect(closed)
        }

        // The same behind a bodiless request: both answered in order, or the second never run.
        let before = gets.snapshot
        let (second, _) = try await raw(port, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let answered = second.components(separatedBy: "HTTP/1.1 200 OK\r\n").count - 1
        #expect(second.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(second)")
        #expect(answered == gets.snapshot - before, "\(answered) answers for \(gets.snapshot - before) requests run")
        #expect(answered == 2 || second.contains("connection: close"))
    }

    @Test func aBodyRequestPipelinedBehindAnotherRunsOnlyIfAnswered() async throws {
        var configuration = WebServer.Configuration()
        configuration.pipelinedRequestResponse = .json(status: 400, #"{"title":"pipelined"}"#)
        let posts = LockedValue(0)
        let server = WebServer(configuration: configuration) { request in
            if request.method == "POST" { posts.withLock { $0 += 1 } }
            return .json(status: request.method == "POST" ? 201 : 200, "{}")
        }
        let port = try server.start()
        defer { server.shutdown() }

        // The POST's head comes from lws' buffered input, where lws 4.1.6 loops on the bytes behind its body.
        let (data, closed) = try await raw(
            port,
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\n"
                + "Content-Length: 3\r\n\r\nabcGET /c HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(data.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(data)")
        let created = data.components(separatedBy: "HTTP/1.1 201 Created\r\n").count - 1
        #expect(posts.snapshot == created, "\(posts.snapshot) POSTs ran, \(created) answered")
        if created == 0 { #expect(data.hasSuffix(#"{"title":"pipelined"}"#), "\(data)") }
        #expect(closed)
    }

    @Test func headersOver8KiBGet431() async throws {
        var configuration = WebServer.Configuration()
        configuration.headersTooLargeResponse = .json(status: 431, #"{"title":"Request header fields too large"}"#)
        let (server, port, handled) = try countingServer(configuration)
        defer { server.shutdown() }

        let big = String(repeating: "a", count: 9000)
        let (data, closed) = try await raw(port, "GET /x HTTP/1.1\r\nHost: x\r\nCookie: c=\(big)\r\n\r\n")
        #expect(data.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(data.prefix(200))")
        #expect(data.hasSuffix(#"{"title":"Request header fields too large"}"#))
        #expect(closed)
        // Just under the limit passes.
        let fits = String(repeating: "a", count: 7000)
        let (ok, _) = try await raw(port, "GET /x HTTP/1.1\r\nHost: x\r\nCookie: c=\(fits)\r\n\r\n", seconds: 3)
        #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(ok.prefix(200))")
        #expect(handled.snapshot == 1)
    }

    @Test func aNulOrNewlineInThePathGets400NotACutPath() async throws {
        var configuration = WebServer.Configuration()
        configuration.badRequestTargetResponse = .json(status: 400, #"{"title":"Bad request target"}"#)
        let paths = LockedValue<[String]>([])
        let server = WebServer(configuration: configuration) { request in
            paths.withLock { $0.append(request.path) }
            return .json("{}")
        }
        let port = try server.start()
        defer { server.shutdown() }

        for target in ["/v1/calls/%00x", "/v1/calls%0Ax", "/v1/calls%0Dx", "/v1/calls/x%0A"] {
            let (data, _) = try await raw(port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n", seconds: 2)
            #expect(data.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(target): \(data)")
            #expect(data.hasSuffix(#"{"title":"Bad request target"}"#), "\(target)")
        }
        // A %00 right after any character but a slash fails lws' own parser (lws_parse_urldecode, which returns -1
        // for a NUL outside its after-a-slash state), which closes the connection unanswered: a documented limit
        // (docs/openapi.yaml), but never a cut path served. In the query no state lets a NUL through, so a %00
        // anywhere there does the same, as do more items than lws' fragment table holds. Should a newer lws answer
        // these, this fails: then the docs change and the answers get tests of their own.
        let items = (0..<100).map { "a\($0)=1" }.joined(separator: "&")
        for target in ["/v1/calls%00x", "/v1/calls?=%00", "/v1/calls?a=%00", "/v1/calls?a%00=1", "/v1/calls?\(items)"] {
            let (dropped, closed) = try await raw(port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n", seconds: 2)
            #expect(dropped.isEmpty && closed, "\(target.prefix(40)): \(dropped)")
        }
        #expect(paths.snapshot.isEmpty, "served \(paths.snapshot)")
        let (fine, _) = try await raw(port, "GET /v1/a%20b HTTP/1.1\r\nHost: x\r\n\r\n", seconds: 3)
        #expect(fine.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(paths.snapshot == ["/v1/a b"])
    }

    @Test func unknownMethodsGetTheConfiguredAnswerNotHTML() async throws {
        var configuration = WebServer.Configuration()
        configuration.unknownMethodResponse = HTTPResponse(
            status: 501, headers: [("content-type", "application/problem+json")],
            body: Array(#"{"status":501}"#.utf8))
        let server = WebServer(configuration: configuration) { _ in .json("{}") }
        let port = try server.start()
        defer { server.shutdown() }

        for method in ["TRACE", "QUERY", "PROPFIND"] {
            let (data, closed) = try await raw(port, "\(method) /v1/calls HTTP/1.1\r\nHost: x\r\n\r\n", seconds: 2)
            #expect(data.hasPrefix("HTTP/1.1 501 Not Implemented\r\n"), "\(method): \(data)")
            #expect(data.contains("content-type: application/problem+json"))
            #expect(!data.contains("<html>"))
            #expect(data.hasSuffix(#"{"status":501}"#))
            #expect(closed)
        }
        // The server still serves.
        let (after, _) = try await raw(port, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n", seconds: 3)
        #expect(after.hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func everyStatusLineHasAReasonPhrase() async throws {
        let server = WebServer(configuration: .init()) { request in
            .json(status: Int(request.path.dropFirst()) ?? 500, "{}")
        }
        let port = try server.start()
        defer { server.shutdown() }

        for (status, phrase) in [
            (200, "OK"), (201, "Created"), (202, "Accepted"), (204, "No Content"),
            (405, "Method Not Allowed"), (422, "Unprocessable Content"), (429, "Too Many Requests"),
            (299, "Success"), (499, "Client Error"),
        ] {
            let result = try await ChildProcess.run(["curl", "-sS", "-i", "http://127.0.0.1:\(port)/\(status)"])
            let line = result.standardOutput.components(separatedBy: "\r\n").first ?? ""
            #expect(line == "HTTP/1.1 \(status) \(phrase)")
        }
    }

    @Test func unmaskedClientFramesCloseWith1002() async throws {
        let delegate = RecordingDelegate { connection, text in connection.send(text: "echo:" + text) }
        let server = WebServer(configuration: .init(webSocketPaths: ["/ws"])) { _ in
            .json(status: 404, "{}")
        } webSocketHandler: { _, _ in
            .accept(delegate)
        }
        let port = try server.start()
        defer { server.shutdown() }

        let output = try await peer(["unmasked", "\(port)", "/ws"])
        #expect((output["handshake"] as? String)?.hasPrefix("HTTP/1.1 101") == true, "\(output)")
        // RFC 6455 §5.1: a server MUST close on an unmasked frame, with 1002 (protocol error, §7.4.1). lws 4.1.6
        // records the mask bit but never checks it (lws_ws_rx_sm; later releases close with 1002), and offers the
        // wrapper no way to see it. When Debian's lws starts enforcing it, this known issue fails: drop the wrapper
        // around this expectation.
        withKnownIssue("libwebsockets 4.1.6 accepts unmasked client frames") {
            #expect(output["close_code"] as? Int == 1002, "\(output)")
            #expect(delegate.messages.snapshot.isEmpty)
        }
    }

    @Test func connectionsOverThePerAddressCapAreClosedAtOnce() async throws {
        var configuration = WebServer.Configuration()
        configuration.maxConnectionsPerAddress = 5
        configuration.capsLoopbackConnections = true
        let server = WebServer(configuration: configuration) { _ in .json("{}") }
        let port = try server.start()
        defer { server.shutdown() }

        let flood = try await peer(["flood", "\(port)", "127.0.0.1", "8"])
        #expect(flood["opened"] as? Int == 8)
        #expect(flood["closed"] as? Int == 3, "\(flood)")
        // Those five closed with the peer: the address may connect again.
        var served = false
        for _ in 0..<20 where !served {
            let again = try await ChildProcess.run(["curl", "-sS", "-m", "2", "http://127.0.0.1:\(port)/x"])
            served = again.standardOutput == "{}"
            if !served { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(served)
        let second = try await peer(["flood", "\(port)", "127.0.0.1", "5"])
        #expect(second["closed"] as? Int == 0, "\(second)")
    }

    @Test func loopbackIsNotCappedUnlessAsked() async throws {
        var configuration = WebServer.Configuration()
        configuration.maxConnectionsPerAddress = 2
        let server = WebServer(configuration: configuration) { _ in .json("{}") }
        let port = try server.start()
        defer { server.shutdown() }

        let flood = try await peer(["flood", "\(port)", "127.0.0.2", "6"])
        #expect(flood["closed"] as? Int == 0, "\(flood)")
    }
}
