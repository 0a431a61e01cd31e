import Foundation
import HTTP2Server
import RingerHTTP
import Testing

/// Requests from curl (libcurl's own HTTP/2 stack over OpenSSL), an independent client.
@Suite(.serialized)
struct CurlExchangeTests {
    @Test("POST with APNs headers: the handler sees everything, curl sees status, apns-id and JSON")
    func postWithAPNsHeaders() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let apnsID = "123E4567-E89B-12D3-A456-426614174000"
        let payload = #"{"aps":{"alert":"ring"}}"#
        let exchange = try await Curl.send(
            "/3/device/ab%20cd?mode=test&note=a+b%21", to: server,
            options: [
                "--http2", "-X", "POST",
                "-H", "apns-topic: com.example.app.voip", "-H", "apns-push-type: voip",
                "-H", "apns-id: \(apnsID)", "-H", "apns-expiration: 0", "-H", "apns-priority: 10",
                "-H", "apns-collapse-id: call-1", "-H", "authorization: bearer eyJ.test.token",
                "-H", "content-type: application/json",
            ],
            body: Array(payload.utf8))
        #expect(exchange.exitCode == 0, "curl: \(exchange.errorOutput)")
        #expect(exchange.httpVersion == "2")
        #expect(exchange.status == 410)
        #expect(exchange.headers["apns-id"] == apnsID)
        #expect(exchange.headers["content-type"] == "application/json")
        #expect(exchange.body == #"{"reason":"Unregistered","timestamp":1700000000000}"#)

        let request = try #require(server.log.all.first)
        #expect(request.httpVersion == 2)
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/ab cd")
        #expect(request.query == ["mode": "test", "note": "a b!"])
        #expect(request.headers["apns-topic"] == "com.example.app.voip")
        #expect(request.headers["apns-push-type"] == "voip")
        #expect(request.headers["apns-id"] == apnsID)
        #expect(request.headers["apns-expiration"] == "0")
        #expect(request.headers["apns-priority"] == "10")
        #expect(request.headers["apns-collapse-id"] == "call-1")
        #expect(request.bearerToken == "eyJ.test.token")
        #expect(request.headers["host"] == "localhost:\(server.port)")
        #expect(request.bodyText == payload)
    }

    @Test("GET answered with an empty 200")
    func emptyResponse() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let exchange = try await Curl.send("/empty", to: server)
        #expect(exchange.exitCode == 0, "curl: \(exchange.errorOutput)")
        #expect(exchange.httpVersion == "2")
        #expect(exchange.status == 200)
        #expect(exchange.headers["content-length"] == "0")
        #expect(exchange.body.isEmpty)
        #expect(server.log.all.first?.method == "GET")
        #expect(server.log.all.first?.body.isEmpty == true)
    }

    @Test("A body over the limit with content-length is answered 413 before it is uploaded")
    func declaredBodyOverLimit() async throws {
        let server = try await TestServer.start { $0.maxRequestBodyBytes = 1024 }
        defer { server.stop() }
        let exchange = try await Curl.send(
            "/echo", to: server, options: ["--http2", "-X", "POST"],
            body: [UInt8](repeating: 0x61, count: 100 * 1024))
        #expect(exchange.status == 413, "curl exit \(exchange.exitCode): \(exchange.errorOutput)")
        #expect(server.log.all.isEmpty)
        let next = try await Curl.send("/echo", to: server, options: ["--http2", "-X", "POST"], body: Array("ok".utf8))
        #expect(next.status == 200)
        #expect(next.body == "echo::ok")
    }

    @Test("An HTTP/1.1-only TLS client is refused in the handshake; the server keeps serving")
    func http11Refused() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let refused = try await Curl.send("/empty", to: server, options: ["--http1.1"])
        #expect(refused.exitCode != 0)
        #expect(refused.status == 0)
        #expect(server.log.all.isEmpty)
        let accepted = try await Curl.send("/empty", to: server)
        #expect(accepted.status == 200)
    }

    @Test("A 1 MiB response body crosses flow control intact; HEAD gets the length without the body")
    func largeBodyAndHead() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let large = try await Curl.send("/big", to: server, options: ["--http2", "--limit-rate", "4M"])
        #expect(large.exitCode == 0, "curl: \(large.errorOutput)")
        #expect(large.headers["content-length"] == "1048576")
        let expected = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        #expect(Array(large.bodyBytes) == expected)
        let head = try await Curl.send("/big", to: server, options: ["--http2", "-X", "HEAD"])
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "1048576")
        #expect(head.bodyBytes.isEmpty)
        #expect(server.log.all.map(\.method) == ["GET", "HEAD"])
    }
}
