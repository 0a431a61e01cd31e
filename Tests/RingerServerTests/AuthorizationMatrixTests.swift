import Foundation
import JWT
import RingerWire
import Testing

@testable import RingerServer

/// Every operation against every kind of caller: no token, an expired token, the admin key where a user is
/// needed (or a user where the admin is), another user, and the right one (issue 12, "an authorization matrix").
/// A caller who may not use an operation never reaches its handler: nothing changes, and the answer does not
/// depend on the body.
@Suite struct AuthorizationMatrixTests {
    /// One operation of docs/openapi.yaml as the matrix exercises it.
    struct Operation: CustomStringConvertible {
        var method: String
        var path: String
        var body: String?
        /// Who may use it: the admin key, the call's parties, or any user (on their own things).
        enum Audience { case admin, participants, anyUser }
        var audience: Audience
        var description: String { "\(method) \(path)" }
    }

    @Test func everyOperationRefusesEveryoneItIsNotFor() async throws {
        try await APITests.withServer(configure: { $0.rateLimits = .off }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            let eve = try await APITests.token(http, "eve")
            let secret = try JWTSigningKey(hmacSecret: Array(String(repeating: "s", count: 32).utf8))
            let past = Int64(Date().timeIntervalSince1970) - 7200
            let expired = try JWT.sign(
                UserTokens.Claims(sub: "alice", iat: past, exp: past + 600, nbf: nil, name: nil),
                keyID: nil, type: "JWT", with: secret)
            _ = try await http.send(
                "PUT", "/v1/devices/bob-phone", token: bob,
                json: #"{"platform":"android","fcm_token":"bob-token"}"#)
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let id = call.callID
            let hook = String(repeating: "a", count: 24)
            let operations: [Operation] = [
                .init(method: "POST", path: "/v1/tokens", body: #"{"user_id":"zed"}"#, audience: .admin),
                .init(method: "GET", path: "/v1/api-keys", body: nil, audience: .admin),
                .init(method: "GET", path: "/metrics", body: nil, audience: .admin),
                .init(method: "GET", path: "/v1/push-providers", body: nil, audience: .admin),
                .init(
                    method: "POST", path: "/v1/push-providers", body: #"{"name":"x","kind":"fcm"}"#, audience: .admin),
                .init(method: "GET", path: "/v1/push-providers/pp_\(hook)", body: nil, audience: .admin),
                .init(
                    method: "PUT", path: "/v1/push-providers/pp_\(hook)", body: #"{"name":"x","kind":"fcm"}"#,
                    audience: .admin),
                .init(method: "DELETE", path: "/v1/push-providers/pp_\(hook)", body: nil, audience: .admin),
                .init(
                    method: "POST", path: "/v1/api-keys", body: #"{"name":"x","scopes":["calls:read"]}"#,
                    audience: .admin),
                .init(method: "DELETE", path: "/v1/api-keys/aaaaaaaaaaaa", body: nil, audience: .admin),
                // The app's backend's routes: an API key or the admin key, never a user token.
                .init(method: "GET", path: "/v1/server/calls", body: nil, audience: .admin),
                .init(
                    method: "POST", path: "/v1/server/calls", body: #"{"caller_id":"alice","callee":"bob"}"#,
                    audience: .admin),
                .init(method: "GET", path: "/v1/server/calls/\(id)", body: nil, audience: .admin),
                .init(method: "POST", path: "/v1/server/calls/\(id)/cancel", body: nil, audience: .admin),
                .init(method: "POST", path: "/v1/server/calls/\(id)/end", body: nil, audience: .admin),
                .init(method: "GET", path: "/v1/webhooks", body: nil, audience: .admin),
                .init(
                    method: "POST", path: "/v1/webhooks", body: #"{"url":"https://example.com/x"}"#, audience: .admin),
                .init(method: "GET", path: "/v1/webhooks/ep_\(hook)", body: nil, audience: .admin),
                .init(
                    method: "PUT", path: "/v1/webhooks/ep_\(hook)", body: #"{"url":"https://example.com/x"}"#,
                    audience: .admin),
                .init(method: "DELETE", path: "/v1/webhooks/ep_\(hook)", body: nil, audience: .admin),
                .init(method: "POST", path: "/v1/webhooks/ep_\(hook)/rotate-secret", body: nil, audience: .admin),
                .init(method: "GET", path: "/v1/webhooks/ep_\(hook)/deliveries", body: nil, audience: .admin),
                .init(
                    method: "POST", path: "/v1/webhooks/ep_\(hook)/deliveries/1/redeliver", body: nil, audience: .admin),
                .init(method: "GET", path: "/v1/devices", body: nil, audience: .anyUser),
                .init(
                    method: "PUT", path: "/v1/devices/x-phone", body: #"{"platform":"android","fcm_token":"x-token"}"#,
                    audience: .anyUser),
                .init(method: "DELETE", path: "/v1/devices/x-phone", body: nil, audience: .anyUser),
                .init(method: "GET", path: "/v1/calls", body: nil, audience: .anyUser),
                .init(method: "POST", path: "/v1/calls", body: #"{"callee":"carol"}"#, audience: .anyUser),
                .init(method: "GET", path: "/v1/calls/\(id)", body: nil, audience: .participants),
                .init(method: "GET", path: "/v1/calls/\(id)/pushes", body: nil, audience: .participants),
                .init(method: "GET", path: "/v1/calls/\(id)/media", body: nil, audience: .participants),
                .init(
                    method: "POST", path: "/v1/calls/\(id)/ringing", body: #"{"device_id":"bob-phone"}"#,
                    audience: .participants),
                .init(
                    method: "POST", path: "/v1/calls/\(id)/accept", body: #"{"device_id":"bob-phone"}"#,
                    audience: .participants),
                .init(
                    method: "POST", path: "/v1/calls/\(id)/decline", body: #"{"device_id":"bob-phone"}"#,
                    audience: .participants),
                .init(method: "POST", path: "/v1/calls/\(id)/cancel", body: nil, audience: .participants),
                .init(method: "POST", path: "/v1/calls/\(id)/end", body: nil, audience: .participants),
                .init(method: "POST", path: "/v1/calls/\(id)/keepalive", body: nil, audience: .participants),
            ]
            for operation in operations {
                // GETs carry no body (URLSession refuses to send one); the others get theirs and one that is not JSON.
                let bodies: [String?] = operation.method == "GET" ? [nil] : [operation.body, "not json"]
                // Nobody, an expired token, and the wrong kind of credential: 401, whatever the body.
                let wrongKind = operation.audience == .admin ? alice : APITests.adminKey
                for (who, token) in [("no token", nil), ("expired", expired), ("wrong kind", wrongKind)]
                    as [(String, String?)]
                {
                    for body in bodies {
                        let response = try await http.send(operation.method, operation.path, token: token, json: body)
                        #expect(response.status == 401, "\(operation) as \(who): \(response.status)")
                        #expect(
                            response.object["type"] as? String == ProblemType.unauthorized.rawValue,
                            "\(operation) as \(who)")
                    }
                }
                // Another user: the call is not theirs, so it does not exist for them, whatever the body.
                if operation.audience == .participants {
                    for body in bodies {
                        let response = try await http.send(operation.method, operation.path, token: eve, json: body)
                        #expect(response.status == 404, "\(operation) as another user: \(response.status)")
                        #expect(response.object["type"] as? String == ProblemType.callNotFound.rawValue, "\(operation)")
                    }
                }
            }
            // None of it changed the call.
            let view = try (try await http.send("GET", "/v1/calls/\(id)", token: bob)).decode(Call.self)
            #expect(view.state == .ringing)
            // The right callers get through (a party of the call; any user on their own things; the admin).
            #expect(
                try await http.send("POST", "/v1/tokens", token: APITests.adminKey, json: #"{"user_id":"zed"}"#).status
                    == 201)
            #expect(try await http.send("GET", "/v1/calls/\(id)", token: alice).status == 200)
            #expect(try await http.send("GET", "/v1/calls/\(id)/pushes", token: bob).status == 200)
            #expect(
                try await http.send("POST", "/v1/calls/\(id)/ringing", token: bob, json: #"{"device_id":"bob-phone"}"#)
                    .status == 200)
            #expect(
                try await http.send("POST", "/v1/calls/\(id)/accept", token: bob, json: #"{"device_id":"bob-phone"}"#)
                    .status == 200)
            #expect(try await http.send("POST", "/v1/calls/\(id)/keepalive", token: alice).status == 204)
            #expect(try await http.send("POST", "/v1/calls/\(id)/end", token: alice).status == 200)
        }
    }
}
