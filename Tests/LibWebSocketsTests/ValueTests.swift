import Foundation
import RingerHTTP
import RingerSupport
import Testing

@testable import LibWebSockets

/// Pure value types and helpers.
@Suite struct ValueTests {
    @Test func bearerTokenComesFromTheHeaderFirstThenTheQuery() {
        #expect(HTTPRequest(method: "GET", path: "/", headers: ["authorization": "Bearer abc"]).bearerToken == "abc")
        #expect(HTTPRequest(method: "GET", path: "/", headers: ["authorization": "bearer  xyz "]).bearerToken == "xyz")
        #expect(HTTPRequest(method: "GET", path: "/", query: ["access_token": "q"]).bearerToken == "q")
        #expect(HTTPRequest(method: "GET", path: "/", headers: ["authorization": "Basic Zm9v"]).bearerToken == nil)
        #expect(HTTPRequest(method: "GET", path: "/", query: ["access_token": ""]).bearerToken == nil)
        #expect(HTTPRequest(method: "GET", path: "/", headers: ["x-a": "1"]).header("X-A") == "1")
    }

    @Test func responseFactoriesSetContentType() {
        let json = HTTPResponse.json(status: 400, #"{"reason":"BadDeviceToken"}"#, headers: [("apns-id", "1")])
        #expect(json.status == 400)
        #expect(json.headers.map(\.name) == ["content-type", "apns-id"])
        #expect(String(decoding: json.body, as: UTF8.self) == #"{"reason":"BadDeviceToken"}"#)
        #expect(HTTPResponse.text("hi").headers.first?.value == "text/plain; charset=utf-8")
        #expect(HTTPResponse.empty(status: 204).body.isEmpty)
    }

    @Test func errorsCompareByKindAndDescribeTheirContext() {
        let error = LibWebSocketsError.connectFailed.with(function: "lws_client_connect_via_info", detail: "refused")
        #expect(error == .connectFailed)
        #expect(error != .invalidURL)
        #expect(error.description == "LibWebSocketsError.connectFailed in lws_client_connect_via_info: refused")
    }

    @Test func logLinesNeverCarryAuthorizationOrAccessTokens() {
        #expect(LibWebSocketsLog.redacted("   authorization: Bearer secret-token") == "   authorization <redacted>")
        #expect(
            LibWebSocketsLog.redacted("GET /v1/events?Access_Token=abc&x=1") == "GET /v1/events?Access_Token <redacted>"
        )
        #expect(LibWebSocketsLog.redacted("plain line") == "plain line")
    }

    @Test func logLinesCanBeRoutedToAClosure() async throws {
        let lines = LockedValue<[String]>([])
        LibWebSocketsLog.route(levels: [.error, .warning, .notice]) { _, line in lines.withLock { $0.append(line) } }
        defer { LibWebSocketsLog.route(levels: .error, to: nil) }
        let server = WebServer(configuration: .init()) { _ in .empty(status: 204) }
        _ = try server.start()
        server.shutdown()
        #expect(lines.snapshot.contains { $0.contains("LWS: 4.") })
    }
}
