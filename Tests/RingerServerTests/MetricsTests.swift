import Foundation
import RingerSandbox
import RingerScenarios
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// `GET /metrics` (decision 0009 §5): Prometheus text that `prometheus_client`'s parser reads, counting what the
/// server did; only for the metrics token or the admin key.
@Suite struct MetricsTests {
    /// One family as the parser read it.
    struct Family: Decodable {
        var type: String
        var samples: [Sample]
    }

    /// `[name, labels, value]`.
    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            name = try container.decode(String.self)
            labels = try container.decode([String: String].self)
            value = try container.decode(Double.self)
        }
    }

    /// The metrics text, parsed by prometheus_client.
    static func scrape(_ http: TestHTTP, token: String) async throws -> [String: Family] {
        let response = try await http.send("GET", "/metrics", token: token)
        #expect(response.status == 200)
        #expect(response.contentType == "text/plain; version=0.0.4; charset=utf-8")
        return try await parse(String(decoding: response.body, as: UTF8.self))
    }

    /// Exposition text as prometheus_client's parser reads it (Tests/Peers/parse_metrics.py).
    static func parse(_ text: String) async throws -> [String: Family] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await PeerScripts.run("parse_metrics.py", [file.path])
        return try JSONDecoder().decode([String: Family].self, from: Data(outcome.standardOutput.utf8))
    }

    /// The value of `sample` with `labels` in `families`.
    static func value(
        _ families: [String: Family], _ family: String, _ sample: String, _ labels: [String: String] = [:]
    ) -> Double? {
        families[family]?.samples.first { $0.name == sample && $0.labels == labels }?.value
    }

    @Test func theServerCountsItsCallsRefusalsStoreAndSocketsAndPrometheusReadsThem() async throws {
        try await APITests.withServer(configure: {
            $0.metricsToken = "scraper-token-0123456789"
            $0.rateLimits = .off
            $0.rateLimits.callsPerCallerPerMinute = 2
        }) { http in
            let (callID, alice, bob) = try await AcceptedCallEndTests.acceptedCall(http)
            _ = try await http.send("POST", "/v1/calls/\(callID)/end", token: alice)
            _ = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
            // The third call in a minute is refused.
            APITests.expectProblem(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#),
                status: 429, type: .rateLimited)
            _ = bob
            let families = try await Self.scrape(http, token: "scraper-token-0123456789")
            #expect(Self.value(families, "ringer_calls_created", "ringer_calls_created_total") == 2)
            #expect(Self.value(families, "ringer_calls", "ringer_calls_total", ["outcome": "answered"]) == 1)
            #expect(families["ringer_call_answer_seconds"]?.type == "histogram")
            #expect(Self.value(families, "ringer_call_answer_seconds", "ringer_call_answer_seconds_count") == 1)
            #expect(Self.value(families, "ringer_call_ringing_seconds", "ringer_call_ringing_seconds_count") == 0)
            #expect(
                Self.value(
                    families, "ringer_rate_limit_refusals", "ringer_rate_limit_refusals_total",
                    ["limit": "calls-per-minute"]) == 1)
            #expect(
                (Self.value(families, "ringer_store_operation_seconds", "ringer_store_operation_seconds_count") ?? 0)
                    > 5)
            #expect(Self.value(families, "ringer_event_sockets", "ringer_event_sockets") == 0)
            #expect(
                Self.value(families, "ringer_webhook_oldest_pending_seconds", "ringer_webhook_oldest_pending_seconds")
                    == 0)
            // The admin key reads them too; a user token, or nothing, does not.
            #expect(try await http.send("GET", "/metrics", token: APITests.adminKey).status == 200)
            APITests.expectProblem(
                try await http.send("GET", "/metrics", token: alice), status: 401, type: .unauthorized)
            APITests.expectProblem(try await http.send("GET", "/metrics"), status: 401, type: .unauthorized)
        }
    }

    @Test func webhookAttemptsAndTheOutboxAgeAreCounted() async throws {
        let receiver = try await WebhookDeliveryTests.Receiver.start()
        try await receiver.configure(#"{"fail_first":1,"fail_status":500}"#)
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            _ = try await WebhookEndpointTests.endpoint(http, key: key, types: ["call.created"], url: receiver.url)
            _ = try await ServerCallAPITests.bob(http)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)
            _ = try await receiver.wait { !$0.isEmpty }
            // The first attempt failed; the event waits for its retry 5 s later.
            var families: [String: Family] = [:]
            for _ in 0..<100 {
                families = try await Self.scrape(http, token: APITests.adminKey)
                if Self.value(
                    families, "ringer_webhook_attempts", "ringer_webhook_attempts_total", ["result": "retrying"])
                    == 1
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(
                Self.value(families, "ringer_webhook_attempts", "ringer_webhook_attempts_total", ["result": "retrying"])
                    == 1)
            #expect(
                (Self.value(
                    families, "ringer_webhook_oldest_pending_seconds", "ringer_webhook_oldest_pending_seconds") ?? -1)
                    > 0)
            _ = try await receiver.wait { $0.count >= 2 }
            for _ in 0..<100 {
                families = try await Self.scrape(http, token: APITests.adminKey)
                if Self.value(
                    families, "ringer_webhook_attempts", "ringer_webhook_attempts_total", ["result": "delivered"])
                    == 1
                {
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(
                Self.value(
                    families, "ringer_webhook_attempts", "ringer_webhook_attempts_total", ["result": "delivered"])
                    == 1)
            #expect(
                Self.value(families, "ringer_webhook_oldest_pending_seconds", "ringer_webhook_oldest_pending_seconds")
                    == 0)
        }
        await receiver.peer.stop()
    }

    @Test func labelValuesAndHelpAreEscapedAsTheFormatSays() async throws {
        let family = MetricsRegistry.Family.counter("test_total", "a \\ help\nline", labels: ["reason"])
        let registry = MetricsRegistry(families: [family])
        registry.add(family, ["quote \" backslash \\ newline \n end"], 2)
        let text = registry.render()
        #expect(text.contains(#"test_total{reason="quote \" backslash \\ newline \n end"} 2"#))
        #expect(text.contains(#"# HELP test_total a \\ help\nline"#))
        // prometheus_client reads the value back as it was.
        let families = try await Self.parse(text)
        #expect(families["test"]?.samples.first?.labels["reason"] == "quote \" backslash \\ newline \n end")
    }

    @Test func pushesAndDeadTokensAreCountedByProvider() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        stack.sandbox.unregister(token: bob.identity.voipToken, at: Date())
        _ = try await alice.call("bob")
        var families: [String: Family] = [:]
        // The push's outcome is counted once stored, which may be after the dead token is removed: it joins the
        // store's next commit (issue 33).
        for _ in 0..<200 {
            families = try await Self.parse(try await stack.metrics())
            if Self.value(
                families, "ringer_dead_tokens_removed", "ringer_dead_tokens_removed_total", ["provider": "apns"])
                == 1,
                Self.value(families, "ringer_push_seconds", "ringer_push_seconds_count", ["provider": "apns"]) == 1
            {
                break
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(
            Self.value(
                families, "ringer_pushes", "ringer_pushes_total",
                ["provider": "apns", "status": "410", "reason": "Unregistered"]) == 1)
        #expect(
            Self.value(families, "ringer_dead_tokens_removed", "ringer_dead_tokens_removed_total", ["provider": "apns"])
                == 1)
        #expect(Self.value(families, "ringer_push_seconds", "ringer_push_seconds_count", ["provider": "apns"]) == 1)
        await stack.shutdown()
    }
}
