import Foundation
import LibWebSockets
import RingerWire
import Testing

@testable import RingerServer

/// One parser reads bearer credentials (`HTTPRequest.authorizationBearerToken`): API routes take the token
/// from `Authorization` only, the event stream also from `?access_token=` when the request has no
/// `Authorization` header (RFC 6750 §2.1, §2.3; §2: one way per request).
@Suite struct BearerTokenTests {
    @Test func anAPIRouteTakesItsTokenFromTheAuthorizationHeaderOnly() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            #expect(try await http.send("GET", "/v1/devices", token: bob).status == 200)
            let queried = try await http.send("GET", "/v1/devices?access_token=\(bob)")
            APITests.expectProblem(queried, status: 401, type: .unauthorized)
            #expect(try await http.send("GET", "/v1/devices", token: "  ").status == 401)
        }
    }

    @Test func theEventStreamTakesAQueryTokenOnlyFromARequestWithoutAnAuthorizationHeader() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let url =
                http.base.absoluteString.replacingOccurrences(of: "http://", with: "ws://")
                + "/v1/events?device_id=bob-phone&access_token=\(bob)"
            let socket = try await WebSocketClient.connect(url: url, headers: [:], onText: { _ in })
            socket.close()
            await #expect(throws: (any Error).self) {
                _ = try await WebSocketClient.connect(
                    url: url, headers: ["authorization": "Basic Ym9iOmJvYg=="], onText: { _ in })
            }
        }
    }
}
