import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// Plain HTTP/1.1 against curl, an independent client.
@Suite struct HTTP1Tests {
    @Test func getWithQueryAndHeaders() async throws {
        let seen = LockedValue<HTTPRequest?>(nil)
        let server = WebServer(configuration: .init(extraRequestHeaders: ["X-Device"])) { request in
            seen.withLock { $0 = request }
            return .json(#"{"ok":true}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }

        let result = try await ChildProcess.run([
            "curl", "-sS", "-i", "http://127.0.0.1:\(port)/v1/items?device_id=d%201&since=42&flag&name=a+b",
            "-H", "X-Device: phone", "-H", "Authorization: Bearer t0k",
        ])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("HTTP/1.1 200"))
        #expect(result.standardOutput.contains("content-type: application/json"))
        #expect(result.standardOutput.hasSuffix(#"{"ok":true}"#))
        let request = try #require(seen.snapshot)
        #expect(request.method == "GET")
        #expect(request.path == "/v1/items")
        #expect(request.query == ["device_id": "d 1", "since": "42", "flag": "", "name": "a b"])
        #expect(request.headers["x-device"] == "phone")
        #expect(request.headers["user-agent"]?.hasPrefix("curl/") == true)
        #expect(request.bearerToken == "t0k")
        #expect(request.httpVersion == 1)
        #expect(request.body.isEmpty)
    }

    @Test func postJSONIsEchoed() async throws {
        let server = WebServer(configuration: .init()) { request in
            .json(status: 201, body: request.body, headers: [("x-method", request.method)])
        }
        let port = try server.start()
        defer { server.shutdown() }

        let json = #"{"callee":"bob","has_video":false,"tags":["a","b"]}"#
        let result = try await ChildProcess.run([
            "curl", "-sS", "-i", "-X", "POST", "http://127.0.0.1:\(port)/v1/calls",
            "-H", "content-type: application/json", "--data-binary", json,
        ])
        #expect(result.standardOutput.hasPrefix("HTTP/1.1 201"))
        #expect(result.standardOutput.contains("x-method: POST"))
        #expect(result.standardOutput.hasSuffix(json))
    }

    @Test func putAndDeleteRoutes() async throws {
        let server = WebServer(configuration: .init()) { request in
            switch (request.method, request.path) {
            case ("PUT", "/v1/devices/d1"): .json(status: 200, #"{"stored":\#(request.body.count)}"#)
            case ("DELETE", "/v1/devices/d1"): .empty(status: 204)
            default: .json(status: 405, #"{"error":"method"}"#)
            }
        }
        let port = try server.start()
        defer { server.shutdown() }

        let url = "http://127.0.0.1:\(port)/v1/devices/d1"
        let put = try await ChildProcess.run([
            "curl", "-sS", "-X", "PUT", url, "--data-binary", "12345",
            "-w", " %{http_code}",
        ])
        #expect(put.standardOutput == #"{"stored":5} 200"#)
        let delete = try await ChildProcess.run(["curl", "-sS", "-X", "DELETE", url, "-w", "%{http_code}"])
        #expect(delete.standardOutput == "204")
        let patch = try await ChildProcess.run([
            "curl", "-sS", "-X", "PATCH", url, "--data-binary", "x", "-w", " %{http_code}",
        ])
        #expect(patch.standardOutput.hasSuffix(" 405"))
    }

    @Test func customStatusAndHeaders() async throws {
        let server = WebServer(configuration: .init()) { _ in
            .json(
                status: 410, #"{"reason":"Unregistered","timestamp":1700000000000}"#,
                headers: [
                    ("apns-id", "7D1E5C9A-0000-4000-8000-000000000001"), ("X-Custom", "yes"),
                    ("bad", "a\r\nx-injected: 1"),
                ])
        }
        let port = try server.start()
        defer { server.shutdown() }

        let result = try await ChildProcess.run(["curl", "-sS", "-i", "http://127.0.0.1:\(port)/"])
        #expect(result.standardOutput.hasPrefix("HTTP/1.1 410"))
        #expect(result.standardOutput.contains("apns-id: 7D1E5C9A-0000-4000-8000-000000000001\r\n"))
        #expect(result.standardOutput.contains("x-custom: yes\r\n"))
        #expect(!result.standardOutput.contains("x-injected"))
        #expect(result.standardOutput.hasSuffix(#"{"reason":"Unregistered","timestamp":1700000000000}"#))
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() async throws {
        let server = WebServer(configuration: .init()) { request in .text(request.path) }
        let port = try server.start()
        defer { server.shutdown() }

        // curl reuses its connection for the second URL; num_connects is 0 when it did.
        let result = try await ChildProcess.run([
            "curl", "-sS", "-w", " %{http_code} %{num_connects}\n",
            "http://127.0.0.1:\(port)/one", "http://127.0.0.1:\(port)/two",
        ])
        #expect(result.standardOutput == "/one 200 1\n/two 200 0\n")
    }

    @Test func notFoundFromTheHandler() async throws {
        let server = WebServer(configuration: .init()) { _ in .json(status: 404, #"{"error":"not_found"}"#) }
        let port = try server.start()
        defer { server.shutdown() }

        let result = try await ChildProcess.run(["curl", "-sS", "-w", " %{http_code}", "http://127.0.0.1:\(port)/nope"])
        #expect(result.standardOutput == #"{"error":"not_found"} 404"#)
    }

    @Test func bodyOverTheLimitGets413WithoutReachingTheHandler() async throws {
        let calls = LockedValue(0)
        let server = WebServer(configuration: .init(maxRequestBodyBytes: 1000)) { request in
            calls.withLock { $0 += 1 }
            return .json(#"{"len":\#(request.body.count)}"#)
        }
        let port = try server.start()
        defer { server.shutdown() }

        let big = String(repeating: "x", count: 5000)
        let url = "http://127.0.0.1:\(port)/upload"
        let rejected = try await ChildProcess.run(["curl", "-sS", "-w", " %{http_code}", "--data-binary", big, url])
        #expect(rejected.standardOutput == #"{"error":"request body too large"} 413"#)
        #expect(calls.snapshot == 0)
        // The connection was drained, not broken: a 413 then a normal request on the same connection.
        let both = try await ChildProcess.run([
            "curl", "-sS", "-w", " %{http_code} %{num_connects}\n",
            "--data-binary", big, url, "--next", "-sS",
            "-w", " %{http_code} %{num_connects}\n", "--data-binary", "ok", url,
        ])
        #expect(both.standardOutput == "{\"error\":\"request body too large\"} 413 1\n{\"len\":2} 200 0\n")
        #expect(calls.snapshot == 1)
    }

    @Test func twoHundredKilobyteResponseArrivesIntact() async throws {
        let payload = (0..<200_000).map { UInt8($0 % 251) }
        let server = WebServer(configuration: .init()) { _ in
            HTTPResponse(status: 200, headers: [("content-type", "application/octet-stream")], body: payload)
        }
        let port = try server.start()
        defer { server.shutdown() }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lws-big-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await ChildProcess.run([
            "curl", "-sS", "-o", file.path, "-w", "%{http_code}",
            "http://127.0.0.1:\(port)/big",
        ])
        #expect(result.standardOutput == "200")
        #expect(try Data(contentsOf: file) == Data(payload))
    }

    @Test func slowHandlerDoesNotBlockOtherRequests() async throws {
        // The slow request is held until the fast one has been answered: if the server served
        // requests one at a time, the fast one could never complete and the slow one would time out.
        let fastAnswered = AsyncStream<Void>.makeStream()
        let server = WebServer(configuration: .init()) { request in
            if request.path == "/slow" {
                let deadline = Task {
                    try? await Task.sleep(for: .seconds(20))
                    fastAnswered.continuation.finish()
                }
                for await _ in fastAnswered.stream { break }
                deadline.cancel()
                return .text("/slow")
            }
            return .text(request.path)
        }
        let port = try server.start()
        defer { server.shutdown() }

        async let slow = ChildProcess.run(["curl", "-sS", "--max-time", "15", "http://127.0.0.1:\(port)/slow"])
        try await Task.sleep(for: .milliseconds(200))
        let fast = try await ChildProcess.run(["curl", "-sS", "--max-time", "10", "http://127.0.0.1:\(port)/fast"])
        #expect(fast.standardOutput == "/fast")
        fastAnswered.continuation.yield()
        #expect(try await slow.standardOutput == "/slow")
    }

    @Test func responseForAClosedConnectionIsDroppedNotMisdelivered() async throws {
        let finished = LockedValue(0)
        let server = WebServer(configuration: .init()) { request in
            if request.path == "/slow" {
                try? await Task.sleep(for: .seconds(1))
                finished.withLock { $0 += 1 }
                return .text("late answer")
            }
            return .text("fresh:\(request.path)")
        }
        let port = try server.start()
        defer { server.shutdown() }

        // The client gives up before the handler answers; new connections (likely reusing the freed
        // wsi memory) must each get their own answer, never the late one.
        let abandoned = try await ChildProcess.run(["curl", "-sS", "-m", "0.3", "http://127.0.0.1:\(port)/slow"])
        #expect(abandoned.status != 0)
        var answers: [String] = []
        for index in 0..<10 {
            answers.append(
                try await ChildProcess.run(["curl", "-sS", "http://127.0.0.1:\(port)/n\(index)"]).standardOutput)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await eventually { finished.snapshot == 1 })
        #expect(answers == (0..<10).map { "fresh:/n\($0)" })
        #expect(
            try await ChildProcess.run(["curl", "-sS", "http://127.0.0.1:\(port)/after"]).standardOutput
                == "fresh:/after")
    }

    @Test func pipelinedRequestBehindABodyClosesInsteadOfSpinning() async throws {
        let server = WebServer(configuration: .init()) { request in .text("\(request.method) \(request.path)") }
        let port = try server.start()

        // GET, then POST with a body, then GET, in one write: lws 4.1.6 would loop forever on the
        // body completion; the server closes the connection instead.
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(b"GET /a HTTP/1.1\\r\\nHost: x\\r\\n\\r\\nPOST /b HTTP/1.1\\r\\nHost: x\\r\\n"
                      b"Content-Length: 3\\r\\n\\r\\nabcGET /c HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            s.settimeout(5)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            print(data.count(b"HTTP/1.1 200"))
            """
        let pipelined = try await ChildProcess.run(["python3", "-c", script, "\(port)"], timeout: 10)
        #expect(pipelined.status == 0, "\(pipelined.standardError)")
        #expect(Int(pipelined.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 1)
        let after = try await ChildProcess.run(["curl", "-sS", "-m", "2", "http://127.0.0.1:\(port)/d"])
        #expect(after.standardOutput == "GET /d")
        let started = Date()
        server.shutdown()
        #expect(Date().timeIntervalSince(started) < 8)
    }
}
