import Foundation
import OpenSSLSupport
import RingerHTTP
import RingerWire
import Testing

@testable import RingerServer

/// Webhook endpoints and the outbox (decision 0009 §3): managed with an API key holding `webhooks:write`, secrets
/// sealed and shown only when made or rotated, each change of a call written to the outbox in its own transaction.
@Suite struct WebhookEndpointTests {
    /// A test secrets key.
    static let secretsKey = [UInt8](repeating: 7, count: 32)

    /// A server that keeps secrets and may deliver to loopback over plain HTTP, as the tests' receivers are.
    static func configure(_ config: inout ServerConfiguration) {
        config.secretsKeys = [secretsKey]
        config.webhookAllowHTTP = true
        config.webhookAllowPrivateAddresses = true
        config.rateLimits = .off
    }

    static func webhooksKey(_ http: TestHTTP) async throws -> String {
        try await APIKeyTests.makeKey(http, scopes: ["webhooks:write", "calls:write"]).key
    }

    /// Makes an endpoint.
    static func endpoint(
        _ http: TestHTTP, key: String, types: [String]? = nil, url: String = "http://127.0.0.1:9/hook"
    ) async throws -> WebhookEndpointWithSecret {
        let list = types.map { ",\"event_types\":[" + $0.map { "\"\($0)\"" }.joined(separator: ",") + "]" } ?? ""
        let made = try await http.send("POST", "/v1/webhooks", token: key, json: #"{"url":"\#(url)"\#(list)}"#)
        #expect(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
        return try made.decode(WebhookEndpointWithSecret.self)
    }

    @Test func anEndpointIsMadeWithASecretShownOnceAndListedWithoutIt() async throws {
        try await APITests.withServer(configure: Self.configure) { http in
            let key = try await Self.webhooksKey(http)
            let made = try await Self.endpoint(http, key: key, types: ["call.ended", "call.created"])
            #expect(
                made.secret.hasPrefix("whsec_") && Data(base64Encoded: String(made.secret.dropFirst(6)))?.count == 32)
            #expect(made.endpoint.eventTypes == [.callCreated, .callEnded] && made.endpoint.enabled)
            #expect(WebhookEndpoints.isEndpointID(made.endpoint.endpointID))
            for path in ["/v1/webhooks", "/v1/webhooks/\(made.endpoint.endpointID)"] {
                let read = try await http.send("GET", path, token: key)
                #expect(read.status == 200)
                #expect(!String(decoding: read.body, as: UTF8.self).contains(String(made.secret.dropFirst(6))))
            }
            let listed = try (try await http.send("GET", "/v1/webhooks", token: key)).decode(WebhookEndpointList.self)
            #expect(listed.endpoints == [made.endpoint])
        }
    }

    @Test func withoutASecretsKeyNoEndpointIsMade() async throws {
        try await APITests.withServer { http in
            let key = try await Self.webhooksKey(http)
            APITests.expectProblem(
                try await http.send("POST", "/v1/webhooks", token: key, json: #"{"url":"https://example.com/hook"}"#),
                status: 409, type: .secretsKeyRequired)
            let listed = try (try await http.send("GET", "/v1/webhooks", token: key)).decode(WebhookEndpointList.self)
            #expect(listed.endpoints.isEmpty)
        }
    }

    @Test func anEndpointTheServerCannotTakeIsRefusedAndStoresNothing() async throws {
        try await APITests.withServer(configure: {
            Self.configure(&$0)
            $0.webhookAllowHTTP = false
            $0.webhookAllowPrivateAddresses = false
        }) { http in
            let key = try await Self.webhooksKey(http)
            let bodies: [(String, Int, ProblemType)] = [
                (#"{"url":"http://example.com/hook"}"#, 422, .invalidField),
                (#"{"url":"ftp://example.com/hook"}"#, 422, .invalidField),
                (#"{"url":"https://user:pw@example.com/hook"}"#, 422, .invalidField),
                (#"{"url":"https://10.1.2.3/hook"}"#, 422, .invalidField),
                (#"{"url":"https://[::1]/hook"}"#, 422, .invalidField),
                (#"{"url":"https://localhost/hook"}"#, 422, .invalidField),
                (#"{"url":"https://169.254.169.254/latest"}"#, 422, .invalidField),
                (#"{"url":"/hook"}"#, 422, .invalidField),
                (#"{"url":"https://example.com/hook","event_types":["call.exploded"]}"#, 422, .invalidField),
                (#"{"url":"https://example.com/hook","event_types":["call.ended","call.ended"]}"#, 422, .invalidField),
                (#"{"url":"https://example.com/hook","description":""}"#, 422, .invalidField),
                (#"{"url":"https://example.com/hook","enabled":"yes"}"#, 400, .malformedRequest),
                (#"{"event_types":[]}"#, 400, .malformedRequest),
            ]
            for (body, status, type) in bodies {
                let answer = try await http.send("POST", "/v1/webhooks", token: key, json: body)
                APITests.expectProblem(answer, status: status, type: type)
            }
            let listed = try (try await http.send("GET", "/v1/webhooks", token: key)).decode(WebhookEndpointList.self)
            #expect(listed.endpoints.isEmpty)
            // A public https URL is taken.
            _ = try await Self.endpoint(http, key: key, url: "https://hooks.example.com/ringer")
        }
    }

    @Test func anEndpointIsChangedRotatedAndRemoved() async throws {
        try await APITests.withServer(configure: Self.configure) { http in
            let key = try await Self.webhooksKey(http)
            let made = try await Self.endpoint(http, key: key)
            let id = made.endpoint.endpointID
            let changed = try await http.send(
                "PUT", "/v1/webhooks/\(id)", token: key,
                json: #"{"url":"http://127.0.0.1:9/other","enabled":false,"description":"CRM"}"#)
            let endpoint = try changed.decode(WebhookEndpoint.self)
            #expect(endpoint.url == "http://127.0.0.1:9/other" && !endpoint.enabled && endpoint.description == "CRM")
            #expect(endpoint.eventTypes.isEmpty)
            let rotated = try
                (try await http.send(
                    "POST", "/v1/webhooks/\(id)/rotate-secret", token: key,
                    json: #"{"previous_secret_expires_in_seconds":3600}"#)).decode(WebhookEndpointWithSecret.self)
            #expect(rotated.secret != made.secret && rotated.endpoint.previousSecretExpiresAt != nil)
            let again = try (try await http.send("POST", "/v1/webhooks/\(id)/rotate-secret", token: key)).decode(
                WebhookEndpointWithSecret.self)
            #expect(again.secret != rotated.secret)
            APITests.expectProblem(
                try await http.send(
                    "POST", "/v1/webhooks/\(id)/rotate-secret", token: key,
                    json: #"{"previous_secret_expires_in_seconds":-1}"#), status: 422, type: .invalidField)
            #expect(try await http.send("DELETE", "/v1/webhooks/\(id)", token: key).status == 204)
            for (method, path) in [
                ("GET", "/v1/webhooks/\(id)"), ("DELETE", "/v1/webhooks/\(id)"), ("GET", "/v1/webhooks/ep_nope"),
                ("GET", "/v1/webhooks/\(id)/deliveries"),
            ] {
                APITests.expectProblem(
                    try await http.send(method, path, token: key), status: 404, type: .webhookEndpointNotFound)
            }
        }
    }

    @Test func aKeyWithoutWebhooksWriteIsRefused() async throws {
        try await APITests.withServer(configure: Self.configure) { http in
            let key = try await APIKeyTests.makeKey(http, scopes: ["calls:read", "calls:write", "tokens:write"]).key
            APITests.expectProblem(
                try await http.send("GET", "/v1/webhooks", token: key), status: 403, type: .insufficientScope)
        }
    }

    @Test func eachChangeOfACallIsQueuedForTheEndpointsThatTakeIt() async throws {
        try await APITests.withServer(configure: Self.configure) { http in
            let key = try await Self.webhooksKey(http)
            let everything = try await Self.endpoint(http, key: key).endpoint.endpointID
            let ends = try await Self.endpoint(http, key: key, types: ["call.ended"]).endpoint.endpointID
            let bob = try await ServerCallAPITests.bob(http)
            let callID = try await WebhookDeliveryTests.answeredCall(http, key: key, bob: bob)
            func deliveries(_ endpoint: String) async throws -> [WebhookDelivery] {
                try (try await http.send("GET", "/v1/webhooks/\(endpoint)/deliveries", token: key)).decode(
                    WebhookDeliveryList.self
                ).deliveries
            }
            let all = try await deliveries(everything)
            #expect(all.map(\.eventType).reversed() == [.callCreated, .callRinging, .callAccepted, .callEnded])
            // Each names the call (port 9 refuses them: each waits for its retry meanwhile).
            #expect(all.allSatisfy { $0.callID == callID })
            let ended = try await deliveries(ends)
            #expect(ended.map(\.eventType) == [.callEnded])
            // One event, one id, whichever endpoint it goes to.
            #expect(ended.first?.eventID == all.first?.eventID)
            // Redelivering one queues it again; an unknown one is 404.
            let first = try #require(all.last)
            let again = try await http.send(
                "POST", "/v1/webhooks/\(everything)/deliveries/\(first.deliveryID)/redeliver", token: key)
            #expect(try again.decode(WebhookDelivery.self).state == .pending)
            APITests.expectProblem(
                try await http.send(
                    "POST", "/v1/webhooks/\(ends)/deliveries/\(first.deliveryID)/redeliver", token: key),
                status: 404, type: .webhookDeliveryNotFound)
            // Paging by cursor, and by state.
            let page = try (try await http.send("GET", "/v1/webhooks/\(everything)/deliveries?limit=3", token: key))
                .decode(WebhookDeliveryList.self)
            let rest = try
                (try await http.send(
                    "GET", "/v1/webhooks/\(everything)/deliveries?limit=3&cursor=\(try #require(page.nextCursor))",
                    token: key)).decode(WebhookDeliveryList.self)
            #expect((page.deliveries + rest.deliveries).map(\.deliveryID) == all.map(\.deliveryID))
            let failed = try
                (try await http.send(
                    "GET", "/v1/webhooks/\(everything)/deliveries?state=failed", token: key)).decode(
                    WebhookDeliveryList.self)
            #expect(failed.deliveries.isEmpty)
            // Disabling an endpoint fails what waits for it; redelivering to it is refused until it is enabled.
            _ = try await http.send(
                "PUT", "/v1/webhooks/\(ends)", token: key, json: #"{"url":"http://127.0.0.1:9/hook","enabled":false}"#)
            let waiting = try #require(try await deliveries(ends).first)
            #expect(waiting.state == .failed && waiting.lastError == "the endpoint was disabled")
            APITests.expectProblem(
                try await http.send(
                    "POST", "/v1/webhooks/\(ends)/deliveries/\(waiting.deliveryID)/redeliver", token: key),
                status: 409, type: .webhookEndpointDisabled)
        }
    }

    @Test func aDisabledEndpointIsSentNothingButKeepsWhatItMissedForRedelivery() async throws {
        try await APITests.withServer(configure: Self.configure) { http in
            let key = try await Self.webhooksKey(http)
            let id = try await Self.endpoint(http, key: key, types: ["call.created", "call.ended"]).endpoint.endpointID
            // Disabled with a change that names nothing else: the types stay.
            let disabled = try
                (try await http.send("PUT", "/v1/webhooks/\(id)", token: key, json: #"{"enabled":false}"#))
                .decode(WebhookEndpoint.self)
            #expect(!disabled.enabled && disabled.eventTypes == [.callCreated, .callEnded])
            _ = try await ServerCallAPITests.bob(http)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)
            let list = try (try await http.send("GET", "/v1/webhooks/\(id)/deliveries", token: key)).decode(
                WebhookDeliveryList.self)
            #expect(list.deliveries.map(\.state) == [.failed])
            #expect(list.deliveries.first?.lastError == "the endpoint was disabled")
            // Enabled again with only `enabled`: what it missed is redelivered on request.
            let enabled = try (try await http.send("PUT", "/v1/webhooks/\(id)", token: key, json: #"{"enabled":true}"#))
                .decode(WebhookEndpoint.self)
            #expect(enabled.enabled && enabled.eventTypes == [.callCreated, .callEnded])
            let missed = try #require(list.deliveries.first)
            let again = try await http.send(
                "POST", "/v1/webhooks/\(id)/deliveries/\(missed.deliveryID)/redeliver", token: key)
            #expect(try again.decode(WebhookDelivery.self).state == .pending)
        }
    }
}

/// The pieces under webhooks: sealing, the public-address rule, the URL rule.
@Suite struct WebhookPartsTests {
    @Test func aSealedSecretOpensOnlyWithItsKeyAndContext() throws {
        let key = [UInt8](repeating: 1, count: 32)
        let other = [UInt8](repeating: 2, count: 32)
        let box = try SecretBox(keys: [key])
        let sealed = try box.seal(Array("s3cret".utf8), context: "webhook:ep_a")
        #expect(try box.open(sealed, context: "webhook:ep_a") == Array("s3cret".utf8))
        #expect(!sealed.contains("s3cret"))
        #expect(throws: SecretBox.Failure.notAuthentic) { try box.open(sealed, context: "webhook:ep_b") }
        var tampered = Array(sealed.utf8)
        // A character in the middle: the last ones may carry base64's unused bits, which decode alike.
        let middle = tampered.count / 2
        tampered[middle] = tampered[middle] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: SecretBox.Failure.self) {
            try box.open(String(decoding: tampered, as: UTF8.self), context: "webhook:ep_a")
        }
        #expect(throws: SecretBox.Failure.self) { try SecretBox(keys: [other]).open(sealed, context: "webhook:ep_a") }
        // Rotation: the new key first seals; the old one still opens what it sealed.
        let rotated = try SecretBox(keys: [other, key])
        #expect(try rotated.open(sealed, context: "webhook:ep_a") == Array("s3cret".utf8))
        #expect(try rotated.seal([1], context: "x").contains(rotated.sealingKeyID))
        #expect(throws: SecretBox.Failure.badKey) { try SecretBox(keys: [[1, 2, 3]]) }
        #expect(throws: SecretBox.Failure.malformed) { try box.open("v2.x.y", context: "") }
    }

    @Test func publicAddressesAreToldFromEveryOtherKind() throws {
        let public_ = ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "172.32.0.1", "100.128.0.1"]
        let other = [
            "10.0.0.1", "127.0.0.1", "169.254.169.254", "172.16.5.4", "192.168.1.1", "100.64.0.1", "0.0.0.0",
            "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00::1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
            "2001:db8::1", "198.18.0.1",
        ]
        for text in public_ { #expect(try #require(IPAddress(text)).isPublic, "\(text)") }
        for text in other { #expect(try !#require(IPAddress(text)).isPublic, "\(text)") }
    }

    @Test func theURLRuleFollowsTheOperatorsSettings() {
        let problem = { (url: String, http: Bool, private_: Bool) in
            WebhookEndpoints.urlProblem(url, allowHTTP: http, allowPrivateAddresses: private_)
        }
        #expect(problem("https://hooks.example.com/x?y=1", false, false) == nil)
        #expect(problem("http://hooks.example.com/x", false, false) != nil)
        #expect(problem("http://hooks.example.com/x", true, false) == nil)
        #expect(problem("https://127.0.0.1:8443/x", false, false) != nil)
        #expect(problem("https://127.0.0.1:8443/x", false, true) == nil)
        #expect(problem("https://api.localhost/x", false, false) != nil)
        // Every numeric form a connection would read as a private address (found by a newcomer's trial).
        for host in ["0x7f000001", "2130706433", "127.1", "017700000001", "192.168.1.1.", "[::ffff:10.0.0.1]"] {
            #expect(problem("https://\(host)/hook", false, false) != nil, "\(host)")
        }
        #expect(problem("https://example.com/x#frag", true, true) != nil)
        #expect(problem("https://" + String(repeating: "a", count: 2100) + ".com", true, true) != nil)
    }
}
