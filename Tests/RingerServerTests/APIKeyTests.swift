import Foundation
import OpenSSLSupport
import RingerStore
import RingerWire
import Testing

@testable import RingerServer

/// API keys for the app's backend (decision 0009 §1): made and revoked with the admin key, shown once, stored as a
/// SHA-256, each allowed only its scopes.
@Suite struct APIKeyTests {
    /// Makes a key with the admin key.
    static func makeKey(
        _ http: TestHTTP, name: String = "backend", scopes: [String]
    ) async throws -> (key: String, id: String) {
        let list = scopes.map { "\"\($0)\"" }.joined(separator: ",")
        let response = try await http.send(
            "POST", "/v1/api-keys", token: APITests.adminKey, json: #"{"name":"\#(name)","scopes":[\#(list)]}"#)
        #expect(response.status == 201)
        let created = try response.decode(CreatedAPIKey.self)
        return (created.key, created.info.keyID)
    }

    @Test func aKeyIsShownOnceAndListedWithoutItsSecret() async throws {
        try await APITests.withServer { http in
            let made = try await http.send(
                "POST", "/v1/api-keys", token: APITests.adminKey,
                json: #"{"name":"billing","scopes":["calls:read","calls:write"]}"#)
            #expect(made.status == 201)
            let created = try made.decode(CreatedAPIKey.self)
            #expect(created.key.hasPrefix("rk_\(created.info.keyID)_") && created.key.utf8.count == APIKeys.keyLength)
            // Stored in the known order, whatever order the request named them in.
            #expect(created.info.scopes == [.callsWrite, .callsRead])
            #expect(made.object["key_id"] as? String == created.info.keyID && made.object["last_used_at"] == nil)
            let listed = try await http.send("GET", "/v1/api-keys", token: APITests.adminKey)
            #expect(try listed.decode(APIKeyList.self).apiKeys == [created.info])
            let text = String(decoding: listed.body, as: UTF8.self)
            #expect(!text.contains(created.key) && !text.contains(String(created.key.suffix(43))))
            #expect(!text.contains(SHA256Digest.hex(Array(created.key.utf8))))
        }
    }

    @Test func aKeyWithTokensWriteMintsTokensAndItsUseIsRecorded() async throws {
        try await APITests.withServer { http in
            let (key, id) = try await Self.makeKey(http, scopes: ["tokens:write"])
            let minted = try await http.send("POST", "/v1/tokens", token: key, json: #"{"user_id":"zed"}"#)
            #expect(minted.status == 201)
            // The token works as one minted with the admin key does.
            let token = try minted.decode(TokenResponse.self).token
            #expect(try await http.send("GET", "/v1/devices", token: token).status == 200)
            // `last_used_at` is written after the answer.
            var used: Date?
            for _ in 0..<100 where used == nil {
                let keys = try await http.send("GET", "/v1/api-keys", token: APITests.adminKey)
                used = try keys.decode(APIKeyList.self).apiKeys.first { $0.keyID == id }?.lastUsedAt
                if used == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(used != nil)
        }
    }

    @Test func aKeyWithoutTheRoutesScopeIsRefusedWithTheChallengeAndChangesNothing() async throws {
        try await APITests.withServer { http in
            let (key, _) = try await Self.makeKey(http, scopes: ["calls:read", "webhooks:write"])
            let refused = try await http.send("POST", "/v1/tokens", token: key, json: #"{"user_id":"zed"}"#)
            APITests.expectProblem(refused, status: 403, type: .insufficientScope)
            #expect(refused.wwwAuthenticate == #"Bearer error="insufficient_scope", scope="tokens:write""#)
            // zed was never recorded: a call to them finds no such user.
            let alice = try await APITests.token(http, "alice")
            APITests.expectProblem(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"zed"}"#),
                status: 404, type: .userNotFound)
        }
    }

    @Test func aRevokedKeyIsRefusedFromTheNextRequest() async throws {
        try await APITests.withServer { http in
            let (key, id) = try await Self.makeKey(http, scopes: ["tokens:write"])
            #expect(try await http.send("POST", "/v1/tokens", token: key, json: #"{"user_id":"zed"}"#).status == 201)
            #expect(try await http.send("DELETE", "/v1/api-keys/\(id)", token: APITests.adminKey).status == 204)
            APITests.expectProblem(
                try await http.send("POST", "/v1/tokens", token: key, json: #"{"user_id":"zed"}"#),
                status: 401, type: .unauthorized)
            APITests.expectProblem(
                try await http.send("DELETE", "/v1/api-keys/\(id)", token: APITests.adminKey),
                status: 404, type: .apiKeyNotFound)
            APITests.expectProblem(
                try await http.send("DELETE", "/v1/api-keys/not-a-key-id", token: APITests.adminKey),
                status: 404, type: .apiKeyNotFound)
            let listed = try await http.send("GET", "/v1/api-keys", token: APITests.adminKey)
            #expect(try listed.decode(APIKeyList.self).apiKeys.isEmpty)
        }
    }

    @Test func aKeyThatIsNotOneOfTheServersIsUnauthorized() async throws {
        try await APITests.withServer(configure: { $0.rateLimits = .off }) { http in
            let (key, id) = try await Self.makeKey(http, scopes: ["tokens:write"])
            let last = key.last == "A" ? "B" : "A"
            let wrongSecret = String(key.dropLast()) + last
            let shapes = [
                wrongSecret, "rk_\(id)", "rk_" + String(repeating: "a", count: 56), key + "x", String(key.dropFirst()),
                key.uppercased(), "rk_\(id)_" + String(repeating: "!", count: 43),
            ]
            for bearer in shapes {
                APITests.expectProblem(
                    try await http.send("POST", "/v1/tokens", token: bearer, json: #"{"user_id":"zed"}"#),
                    status: 401, type: .unauthorized)
            }
            // A user token is no API key, and an API key is not the admin key.
            let alice = try await APITests.token(http, "alice")
            APITests.expectProblem(
                try await http.send("POST", "/v1/tokens", token: alice, json: #"{"user_id":"zed"}"#),
                status: 401, type: .unauthorized)
            // An API key on the operator's routes is 403, and no failed authentication: a backend calling one by
            // mistake must not lock its address out (found by a newcomer's trial).
            for (method, path) in [("GET", "/v1/api-keys"), ("POST", "/v1/api-keys"), ("DELETE", "/v1/api-keys/\(id)")]
            {
                APITests.expectProblem(
                    try await http.send(method, path, token: key, json: method == "POST" ? "{}" : nil),
                    status: 403, type: .forbidden)
            }
        }
    }

    @Test func anAPIKeyOnTheOperatorsRoutesNeverLocksTheAddressOut() async throws {
        try await APITests.withServer(configure: {
            $0.rateLimits = .off
            $0.rateLimits.authFailuresPerAddressPerMinute = 3
        }) { http in
            let (key, _) = try await Self.makeKey(http, scopes: ["calls:read"])
            for _ in 0..<5 {
                APITests.expectProblem(
                    try await http.send("GET", "/v1/api-keys", token: key), status: 403, type: .forbidden)
            }
            #expect(try await http.send("GET", "/v1/api-keys", token: APITests.adminKey).status == 200)
        }
    }

    @Test func badKeyLimitsTheAddressAsABadTokenDoes() async throws {
        try await APITests.withServer(configure: {
            $0.rateLimits = .off
            $0.rateLimits.authFailuresPerAddressPerMinute = 3
        }) { http in
            let bad = "rk_" + String(repeating: "a", count: 12) + "_" + String(repeating: "b", count: 43)
            for _ in 0..<3 {
                APITests.expectProblem(
                    try await http.send("POST", "/v1/tokens", token: bad, json: #"{"user_id":"zed"}"#),
                    status: 401, type: .unauthorized)
            }
            APITests.expectProblem(
                try await http.send("POST", "/v1/tokens", token: bad, json: #"{"user_id":"zed"}"#),
                status: 429, type: .rateLimited)
        }
    }

    @Test func aRequestForAKeyThatCannotBeMadeIsRefusedAndStoresNothing() async throws {
        try await APITests.withServer { http in
            let bodies: [(String, Int, ProblemType)] = [
                (#"{"name":"x","scopes":[]}"#, 422, .invalidField),
                (#"{"name":"x","scopes":["calls:admin"]}"#, 422, .invalidField),
                (#"{"name":"x","scopes":["calls:read","calls:read"]}"#, 422, .invalidField),
                (#"{"name":"","scopes":["calls:read"]}"#, 422, .invalidField),
                (#"{"name":"a\u0007b","scopes":["calls:read"]}"#, 422, .invalidField),
                (#"{"name":"x"}"#, 400, .malformedRequest),
                (#"{"name":"x","scopes":"calls:read"}"#, 400, .malformedRequest),
                (#"{"name":"x","scopes":null}"#, 400, .malformedRequest),
                ("not json", 400, .malformedRequest),
            ]
            for (body, status, type) in bodies {
                APITests.expectProblem(
                    try await http.send("POST", "/v1/api-keys", token: APITests.adminKey, json: body),
                    status: status, type: type)
            }
            let listed = try await http.send("GET", "/v1/api-keys", token: APITests.adminKey)
            #expect(try listed.decode(APIKeyList.self).apiKeys.isEmpty)
        }
    }

    @Test func keysAreDistinctWellFormedAndStoredAsTheirSHA256() {
        // FIPS 180-4's example: SHA-256("abc").
        #expect(
            SHA256Digest.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var seen: Set<String> = []
        for _ in 0..<200 {
            let (key, stored) = APIKeys.generate(name: "n", scopes: [.callsRead], now: Date())
            #expect(APIKeys.keyID(of: key) == stored.info.keyID)
            #expect(APIKeys.isKeyID(stored.info.keyID))
            #expect(stored.keyHash == SHA256Digest.hex(Array(key.utf8)))
            seen.insert(key)
        }
        #expect(seen.count == 200)
    }
}

/// The API key rows, alike on SQLite and PostgreSQL.
@Suite struct APIKeyStoreTests {
    @Test(arguments: StoreKind.allCases) func keysAreStoredListedTouchedAndDeleted(_ kind: StoreKind) async throws {
        let store = try await kind.open()
        let at = Date(unixMilliseconds: 1_800_000_000_000)
        let first = APIKeys.generate(name: "first", scopes: [.callsWrite, .callsRead], now: at).stored
        let second = APIKeys.generate(name: "second", scopes: [.webhooksWrite], now: at.addingTimeInterval(1)).stored
        try await store.insertAPIKey(first)
        try await store.insertAPIKey(second)
        #expect(try await store.apiKeys() == [first, second])
        #expect(try await store.apiKey(id: first.info.keyID) == first)
        try await store.touchAPIKey(id: first.info.keyID, at: at.addingTimeInterval(5))
        #expect(try await store.apiKey(id: first.info.keyID)?.info.lastUsedAt == at.addingTimeInterval(5))
        #expect(try await store.deleteAPIKey(id: first.info.keyID))
        #expect(try await !store.deleteAPIKey(id: first.info.keyID))
        // A late touch does not bring a revoked key back.
        try await store.touchAPIKey(id: first.info.keyID, at: at.addingTimeInterval(6))
        #expect(try await store.apiKey(id: first.info.keyID) == nil)
        #expect(try await store.apiKeys() == [second])
    }
}
