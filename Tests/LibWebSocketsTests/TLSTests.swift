import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerTestSupport
import Testing

/// HTTP/1.1 over TLS against curl and a Python `h2` client. HTTP/2 is never negotiated: lws 4.1.6's HTTP/2 server
/// aborted the process on a client overrunning its flow-control window and cut answers over 267 bytes short (found by
/// Tests/Peers/protocol_fuzz_peer.py against the FCM sandbox, issue 26; docs/decisions/0001-refuse-h2c-upgrade.md).
@Suite struct TLSTests {
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

    private func startAPNsLikeServer(
        _ certificates: TestCertificates, seen: LockedValue<[HTTPRequest]>
    ) throws
        -> (WebServer, Int)
    {
        let configuration = WebServer.Configuration(
            tls: .init(certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey),
            extraRequestHeaders: [
                "apns-topic", "apns-push-type", "apns-id", "apns-expiration", "apns-priority",
                "apns-collapse-id",
            ])
        let server = WebServer(configuration: configuration) { request in
            seen.withLock { $0.append(request) }
            if request.path.hasPrefix("/gone/") {
                return .json(
                    status: 410, #"{"reason":"Unregistered","timestamp":1700000000000}"#,
                    headers: [("apns-id", request.headers["apns-id"] ?? "generated-id")])
            }
            return .json(
                #"{"path":"\#(request.path)","len":\#(request.body.count)}"#,
                headers: [("apns-id", "id-for-\(request.path.split(separator: "/").last ?? "")")])
        }
        return (server, try server.start())
    }

    @Test func aClientOfferingHTTP2GetsHTTP1WithTheWholeAnswer() async throws {
        try await withAPNsLikeServer { certificates, seen, port in
            let long = String(repeating: "x", count: 2000)
            let result = try await ChildProcess.run([
                "curl", "-sS", "-i", "--http2", "--cacert", certificates.caFile,
                "https://localhost:\(port)/gone/\(long)", "-H", "content-type: application/json",
                "--data-binary", #"{"aps":{}}"#,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("HTTP/1.1 410"), "\(result.standardOutput.prefix(200))")
            #expect(result.standardOutput.hasSuffix(#"{"reason":"Unregistered","timestamp":1700000000000}"#))
            let request = try #require(seen.snapshot.first)
            #expect(request.httpVersion == 1 && request.bodyText == #"{"aps":{}}"#)
            // An answer longer than lws' 256-byte protocol buffer arrives whole.
            let echo = try await ChildProcess.run([
                "curl", "-sS", "--http2", "--cacert", certificates.caFile,
                "https://localhost:\(port)/\(long)",
            ])
            #expect(echo.standardOutput == #"{"path":"/\#(long)","len":0}"#)
        }
    }

    @Test func theH2LibraryIsNotOfferedHTTP2() async throws {
        try await withAPNsLikeServer { certificates, _, port in
            let result = try await ChildProcess.run([
                "python3", PeerScripts.path("h2_client_peer.py"), "--port", "\(port)", "--cafile", certificates.caFile,
                "--count", "1", "--method", "GET", "--path-prefix", "/3/device/",
            ])
            #expect(
                result.status != 0 || jsonObject(result.standardOutput)?["alpn"] as? String != "h2",
                "\(result.standardOutput) \(result.standardError)")
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
}
