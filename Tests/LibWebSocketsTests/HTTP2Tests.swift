import Foundation
import RingerSync
import RingerHTTP
import LibWebSockets
import RingerTestSupport
import Testing

/// HTTP/2 over TLS (ALPN h2) against curl and a Python `h2` client.
@Suite struct HTTP2Tests {
    /// A TLS server answering like APNs: 410 with a JSON body and an apns-id header on /3/device/…,
    /// else 200 echoing the path and body length.
    /// Runs `body` against a TLS server that answers like APNs and records what it saw.
    private func withAPNsLikeServer(
        _ body: (TestCertificates, LockedValue<[HTTPRequest]>, Int) async throws -> Void
    ) async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let seen = LockedValue<[HTTPRequest]>([])
        let (server, port) = try startAPNsLikeServer(certificates, seen: seen)
        defer { server.shutdown() }
        try await body(certificates, seen, port)
    }

    private func startAPNsLikeServer(_ certificates: TestCertificates, seen: LockedValue<[HTTPRequest]>) throws
        -> (WebServer, Int) {
        let configuration = WebServer.Configuration(
            tls: .init(certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey),
            extraRequestHeaders: ["apns-topic", "apns-push-type", "apns-id", "apns-expiration", "apns-priority",
                                  "apns-collapse-id"])
        let server = WebServer(configuration: configuration) { request in
            seen.withLock { $0.append(request) }
            if request.path.hasPrefix("/gone/") {
                return .json(status: 410, #"{"reason":"Unregistered","timestamp":1700000000000}"#,
                             headers: [("apns-id", request.headers["apns-id"] ?? "generated-id")])
            }
            return .json(#"{"path":"\#(request.path)","len":\#(request.body.count)}"#,
                         headers: [("apns-id", "id-for-\(request.path.split(separator: "/").last ?? "")")])
        }
        return (server, try server.start())
    }

    @Test func curlSeesHTTP2AndCustomStatusHeadersAndBody() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            let result = try await ChildProcess.run([
                "curl", "-sS", "-i", "--http2", "--cacert", certificates.caFile,
                "https://localhost:\(port)/gone/abc123", "-H", "authorization: bearer eyJhbGciOi.x.y",
                "-H", "apns-topic: com.example.app.voip", "-H", "content-type: application/json",
                "--data-binary", #"{"aps":{}}"#,
            ])
            #expect(result.status == 0)
            #expect(result.standardOutput.hasPrefix("HTTP/2 410"))
            #expect(result.standardOutput.contains("apns-id: generated-id\r\n"))
            #expect(result.standardOutput.contains("content-type: application/json\r\n"))
            #expect(result.standardOutput.hasSuffix(#"{"reason":"Unregistered","timestamp":1700000000000}"#))
            let request = try #require(seen.snapshot.first)
            #expect(request.httpVersion == 2)
            #expect(request.method == "POST")
            #expect(request.path == "/gone/abc123")
            #expect(request.bodyText == #"{"aps":{}}"#)
            #expect(request.headers["authorization"] == "bearer eyJhbGciOi.x.y")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["host"] == "localhost:\(port)")
        }
    }

    @Test func apnsHeadersReachTheHandlerOverHTTP1() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            let result = try await ChildProcess.run([
                "curl", "-sS", "--http1.1", "--cacert", certificates.caFile, "https://127.0.0.1:\(port)/gone/t1",
                "-H", "apns-topic: com.example.app.voip", "-H", "apns-push-type: voip", "-H", "apns-id: 42",
                "-H", "apns-expiration: 0", "-H", "apns-priority: 10", "-H", "apns-collapse-id: c1",
                "-w", " %{http_code}",
            ])
            #expect(result.standardOutput.hasSuffix(" 410"))
            let request = try #require(seen.snapshot.first)
            #expect(request.httpVersion == 1)
            #expect(request.headers["apns-topic"] == "com.example.app.voip")
            #expect(request.headers["apns-push-type"] == "voip")
            #expect(request.headers["apns-id"] == "42")
            #expect(request.headers["apns-expiration"] == "0")
            #expect(request.headers["apns-priority"] == "10")
            #expect(request.headers["apns-collapse-id"] == "c1")
        }
    }

    @Test func apnsHeadersOverHTTP2AreDroppedByLibwebsockets416() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            _ = try await ChildProcess.run(["curl", "-sS", "--http2", "--cacert", certificates.caFile,
                                            "https://localhost:\(port)/ok", "-H", "apns-topic: com.example.app.voip"])
            let request = try #require(seen.snapshot.first)
            #expect(request.httpVersion == 2)
            withKnownIssue("lws 4.1.6 hpack.c discards unknown header values on HTTP/2 streams") {
                #expect(request.headers["apns-topic"] == "com.example.app.voip")
            }
        }
    }

    @Test func hundredConcurrentStreamsOnOneConnection() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            let result = try await ChildProcess.run([
                "python3", PeerScripts.path("h2_client_peer.py"), "--port", "\(port)", "--cafile", certificates.caFile,
                "--count", "100", "--method", "GET", "--path-prefix", "/3/device/",
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let output = try #require(jsonObject(result.standardOutput))
            #expect(output["alpn"] as? String == "h2")
            let responses = try #require(output["responses"] as? [[String: Any]])
            #expect(responses.count == 100)
            for response in responses {
                let index = try #require(response["i"] as? Int)
                let token = String(format: "%064x", index)
                #expect(response["status"] as? Int == 200)
                #expect(response["body"] as? String == #"{"path":"/3/device/\#(token)","len":0}"#)
                #expect((response["headers"] as? [String: String])?["apns-id"] == "id-for-\(token)")
            }
            #expect(seen.snapshot.count == 100)
            #expect(seen.snapshot.allSatisfy { $0.httpVersion == 2 && $0.headers["authorization"] == "bearer test-token" })
        }
    }

    @Test func postWithoutContentLengthGets411() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            // lws 4.1.6 never reports the end of an HTTP/2 body that has no content-length, so the
            // server refuses such requests at once instead of leaving the streams hanging.
            let result = try await ChildProcess.run([
                "python3", PeerScripts.path("h2_client_peer.py"), "--port", "\(port)", "--cafile", certificates.caFile,
                "--count", "10",
            ])
            let output = try #require(jsonObject(result.standardOutput))
            let responses = try #require(output["responses"] as? [[String: Any]])
            #expect(responses.count == 10)
            #expect(responses.allSatisfy { $0["status"] as? Int == 411 && $0["ended"] as? Bool == true })
            #expect(seen.snapshot.isEmpty)
        }
    }

    @Test func concurrentPostsWithContentLengthHitALibwebsockets416Bug() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            let result = try await ChildProcess.run([
                "python3", PeerScripts.path("h2_client_peer.py"), "--port", "\(port)", "--cafile", certificates.caFile,
                "--count", "20", "--content-length", "--timeout", "5",
            ])
            let output = try #require(jsonObject(result.standardOutput))
            let responses = try #require(output["responses"] as? [[String: Any]])
            withKnownIssue("lws 4.1.6 http2.c sends GOAWAY 'More rx than content_length told' when a DATA frame is not last in a read",
                           isIntermittent: true) {
                #expect(responses.allSatisfy { $0["status"] as? Int == 200 })
            }
        }
    }
}
