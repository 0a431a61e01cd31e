import Foundation
import RingerCore
import RingerStore
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// Webhook deliveries against a real receiver (decision 0009 §3): Tests/Peers/webhook_receiver.py verifies every one
/// with the `standardwebhooks` package (PyPI), and is made to be down, fail, be slow, or be gone.
@Suite(.serialized) struct WebhookDeliveryTests {
    /// One delivery as the receiver recorded it.
    struct Record: Decodable, Sendable {
        var id: String
        var timestamp: String
        var signatures: Int
        var verifiedBy: [Int]
        var type: String?
        var callId: String?
        var seq: Int?
        var durationMs: Int?
        var answered: Int
        var at: Double
    }

    /// The receiver peer.
    struct Receiver: Sendable {
        let peer: PeerProcess
        let http: TestHTTP
        var url: String { http.base.absoluteString + "/hook" }

        static func start(port: Int? = nil) async throws -> Receiver {
            let peer = try await PeerProcess.start(
                ["python3", PeerScripts.path("webhook_receiver.py")] + (port.map { [String($0)] } ?? []))
            let number = try #require(Int(peer.firstLine.split(separator: " ").last ?? ""))
            return Receiver(peer: peer, http: TestHTTP(base: URL(string: "http://127.0.0.1:\(number)")!))
        }

        func configure(_ json: String) async throws {
            #expect(try await http.send("POST", "/control", json: json).status == 200)
        }

        func received() async throws -> [Record] {
            let data = try await http.send("GET", "/received").body
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode([Record].self, from: data)
        }

        /// Waits (at most `seconds`) until `done` holds for what was received.
        func wait(seconds: Double = 20, until done: ([Record]) -> Bool) async throws -> [Record] {
            let deadline = Date().addingTimeInterval(seconds)
            var records = try await received()
            while !done(records), Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
                records = try await received()
            }
            return records
        }
    }

    /// Places a call from alice to bob with the backend's key, bob answers, then hangs up after a moment.
    static func answeredCall(_ http: TestHTTP, key: String, bob: String) async throws -> String {
        let call = try
            (try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)).decode(
                Call.self)
        for action in ["ringing", "accept"] {
            _ = try await http.send(
                "POST", "/v1/calls/\(call.callID)/\(action)", token: bob, json: #"{"device_id":"bob-iphone"}"#)
        }
        try await Task.sleep(for: .milliseconds(20))
        _ = try await http.send("POST", "/v1/calls/\(call.callID)/end", token: bob)
        return call.callID
    }

    @Test func everyDeliveryVerifiesWithStandardWebhooksInTheCallsOrder() async throws {
        let receiver = try await Receiver.start()
        defer { Task { await receiver.peer.stop() } }
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            let made = try await WebhookEndpointTests.endpoint(http, key: key, url: receiver.url)
            try await receiver.configure(#"{"secrets":["\#(made.secret)"]}"#)
            let bob = try await ServerCallAPITests.bob(http)
            let callID = try await Self.answeredCall(http, key: key, bob: bob)
            let records = try await receiver.wait { $0.count >= 4 }
            #expect(records.count == 4)
            #expect(records.allSatisfy { $0.verifiedBy == [0] && $0.signatures == 1 && $0.callId == callID })
            #expect(Set(records.map(\.id)).count == 4)
            // Sent as they come, ordered by seq: the call's life.
            let ordered = records.sorted { ($0.seq ?? 0) < ($1.seq ?? 0) }
            #expect(ordered.map(\.type) == ["call.created", "call.ringing", "call.accepted", "call.ended"])
            #expect(ordered.map(\.seq) == [1, 2, 3, 4])
            #expect((ordered.last?.durationMs ?? -1) >= 0)
            // And the server says so.
            var deliveries: [WebhookDelivery] = []
            for _ in 0..<100 {
                deliveries = try
                    (try await http.send(
                        "GET", "/v1/webhooks/\(made.endpoint.endpointID)/deliveries", token: key)).decode(
                        WebhookDeliveryList.self
                    ).deliveries
                if deliveries.allSatisfy({ $0.state == .delivered }) { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(deliveries.allSatisfy { $0.state == .delivered && $0.lastStatus == 200 && $0.attempts == 1 })
        }
        await receiver.peer.stop()
    }

    @Test func aReceiverDownForAWhileGetsTheEventOnceItIsBack() async throws {
        var closed: ClosedPort? = try ClosedPort()
        let port = try #require(closed?.port)
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            let made = try await WebhookEndpointTests.endpoint(
                http, key: key, types: ["call.created"], url: "http://127.0.0.1:\(port)/hook")
            _ = try await ServerCallAPITests.bob(http)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)
            // The first attempt is refused.
            var failed: WebhookDelivery?
            for _ in 0..<100 where failed == nil {
                failed = try
                    (try await http.send(
                        "GET", "/v1/webhooks/\(made.endpoint.endpointID)/deliveries", token: key)).decode(
                        WebhookDeliveryList.self
                    ).deliveries.first { $0.attempts == 1 }
                if failed == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(failed?.state == .pending && failed?.lastError != nil && failed?.lastStatus == nil)
            // The receiver comes up on that port; the retry 5 s later reaches it.
            closed = nil
            let receiver = try await Receiver.start(port: port)
            try await receiver.configure(#"{"secrets":["\#(made.secret)"]}"#)
            let records = try await receiver.wait { !$0.isEmpty }
            #expect(records.map(\.type) == ["call.created"] && records.first?.verifiedBy == [0])
            #expect(records.first?.id == failed?.eventID)
            await receiver.peer.stop()
        }
    }

    @Test func aFailingReceiverIsRetriedNoSoonerThanItsRetryAfter() async throws {
        let receiver = try await Receiver.start()
        try await receiver.configure(#"{"fail_first":1,"fail_status":503,"retry_after":"7"}"#)
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            let made = try await WebhookEndpointTests.endpoint(
                http, key: key, types: ["call.created"], url: receiver.url)
            try await receiver.configure(#"{"secrets":["\#(made.secret)"]}"#)
            _ = try await ServerCallAPITests.bob(http)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)
            let records = try await receiver.wait(seconds: 30) { $0.count >= 2 }
            #expect(records.map(\.answered) == [503, 200])
            #expect(Set(records.map(\.id)).count == 1)
            // Retry-After 7 s wins over the schedule's 5 s.
            #expect(records.count == 2 && records[1].at - records[0].at >= 6.5)
            #expect(records.allSatisfy { $0.verifiedBy == [0] })
        }
        await receiver.peer.stop()
    }

    @Test func aSlowReceiverDelaysNeitherCallsNorAnotherEndpoint() async throws {
        let slow = try await Receiver.start()
        let fast = try await Receiver.start()
        // Far longer than the calls take: whatever the machine's load, they and the other endpoint's deliveries are
        // done before the slow receiver answers once.
        try await slow.configure(#"{"delay":12}"#)
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            _ = try await WebhookEndpointTests.endpoint(http, key: key, types: ["call.created"], url: slow.url)
            let quick = try await WebhookEndpointTests.endpoint(http, key: key, types: ["call.created"], url: fast.url)
            try await fast.configure(#"{"secrets":["\#(quick.secret)"]}"#)
            _ = try await ServerCallAPITests.bob(http)
            for index in 0..<8 {
                let placed = try await http.send(
                    "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"caller\#(index)","callee":"bob"}"#)
                #expect(placed.status == 201)
            }
            let records = try await fast.wait { $0.count >= 8 }
            let done = Date().timeIntervalSince1970
            #expect(records.count == 8 && records.allSatisfy { $0.verifiedBy == [0] })
            // Eight calls placed and delivered elsewhere while the slow receiver still held its first deliveries,
            // of which it had at most four at once.
            let held = try await slow.received()
            #expect(!held.isEmpty && held.count <= WebhookDispatcher.perEndpoint)
            #expect(done < (held.map(\.at).min() ?? 0) + 12)
        }
        await slow.peer.stop()
        await fast.peer.stop()
    }

    @Test func aReceiverAnswering410IsDisabledAndGetsNothingMore() async throws {
        let receiver = try await Receiver.start()
        try await receiver.configure(#"{"status":410}"#)
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            let made = try await WebhookEndpointTests.endpoint(
                http, key: key, types: ["call.created"], url: receiver.url)
            let id = made.endpoint.endpointID
            _ = try await ServerCallAPITests.bob(http)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)
            var endpoint: WebhookEndpoint?
            for _ in 0..<200 {
                endpoint = try (try await http.send("GET", "/v1/webhooks/\(id)", token: key)).decode(
                    WebhookEndpoint.self)
                if endpoint?.enabled == false { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(endpoint?.enabled == false && endpoint?.disabledReason == "gone")
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"carol","callee":"bob"}"#)
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await receiver.received().count == 1)
            let failed = try
                (try await http.send(
                    "GET", "/v1/webhooks/\(id)/deliveries?state=failed", token: key)).decode(WebhookDeliveryList.self)
            // The 410 itself, and the next call's event, kept as failed for the disabled endpoint (for redelivery).
            #expect(failed.deliveries.map(\.lastStatus) == [nil, 410])
            #expect(failed.deliveries.first?.lastError == "the endpoint was disabled")
        }
        await receiver.peer.stop()
    }

    @Test func duringARotationBothSecretsSign() async throws {
        let receiver = try await Receiver.start()
        try await APITests.withServer(configure: WebhookEndpointTests.configure) { http in
            let key = try await WebhookEndpointTests.webhooksKey(http)
            let made = try await WebhookEndpointTests.endpoint(
                http, key: key, types: ["call.created"], url: receiver.url)
            let rotated = try
                (try await http.send(
                    "POST", "/v1/webhooks/\(made.endpoint.endpointID)/rotate-secret", token: key)).decode(
                    WebhookEndpointWithSecret.self)
            try await receiver.configure(#"{"secrets":["\#(made.secret)","\#(rotated.secret)"]}"#)
            _ = try await ServerCallAPITests.bob(http)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)
            let records = try await receiver.wait { !$0.isEmpty }
            #expect(records.first?.signatures == 2 && records.first?.verifiedBy == [0, 1])
            // Retired at once: only the new one signs.
            let retired = try
                (try await http.send(
                    "POST", "/v1/webhooks/\(made.endpoint.endpointID)/rotate-secret", token: key,
                    json: #"{"previous_secret_expires_in_seconds":0}"#)).decode(WebhookEndpointWithSecret.self)
            try await receiver.configure(#"{"secrets":["\#(retired.secret)","\#(rotated.secret)"]}"#)
            _ = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"carol","callee":"bob"}"#)
            let more = try await receiver.wait { $0.count >= 2 }
            #expect(more.last?.signatures == 1 && more.last?.verifiedBy == [0])
        }
        await receiver.peer.stop()
    }
}

/// Claims of the outbox (``RingerStore/claimWebhookDeliveries``), alike on SQLite and PostgreSQL: each attempt by one
/// server, a dead server's claims taken over, a lost claim's outcome dropped, a failed delivery redelivered.
@Suite struct WebhookClaimTests {
    /// A store with one endpoint and one call's `call.created` queued for it.
    static func queued(_ kind: StoreKind) async throws -> (SQLStore, SQLStore, endpoint: String) {
        let (first, second) = try await kind.openTwo()
        let now = Date()
        let endpoint = StoredWebhookEndpoint(
            info: WebhookEndpoint(
                endpointID: WebhookEndpoints.newID(), url: "http://127.0.0.1:9/hook", eventTypes: [], description: nil,
                enabled: true, createdAt: now, updatedAt: now),
            sealedSecret: "sealed")
        try await first.insertWebhookEndpoint(endpoint)
        _ = try await first.insertCall(StoreConformanceTests.ringingCall(), events: [], idempotencyKey: nil)
        for node in ["a", "b"] { try await first.heartbeat(node: node, at: now) }
        return (first, second, endpoint.info.endpointID)
    }

    static func claim(_ store: SQLStore, _ node: String, at now: Date = Date()) async throws -> [ClaimedWebhookDelivery]
    {
        try await store.claimWebhookDeliveries(
            at: now, by: node, lease: 60, limit: 10, perEndpoint: 4, inFlight: [:], nodeDeadAfter: 10)
    }

    @Test(arguments: StoreKind.allCases) func eachAttemptIsClaimedByOneServer(_ kind: StoreKind) async throws {
        let (first, second, _) = try await Self.queued(kind)
        async let a = Self.claim(first, "a")
        async let b = Self.claim(second, "b")
        let (byA, byB) = try await (a, b)
        #expect(byA.count + byB.count == 1)
        #expect(try await Self.claim(first, "a").isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aDeadServersClaimIsTakenOverAndItsLateOutcomeDropped(
        _ kind: StoreKind
    ) async throws {
        let (first, second, endpoint) = try await Self.queued(kind)
        let claimed = try #require(try await Self.claim(first, "a").first)
        // "a" stops beating; 11 s on, "b" (alive) takes the delivery over.
        let later = Date().addingTimeInterval(11)
        try await second.heartbeat(node: "b", at: later)
        let taken = try #require(try await Self.claim(second, "b", at: later).first)
        #expect(taken.deliveryID == claimed.deliveryID && taken.eventID == claimed.eventID)
        // "a" comes back and reports: its claim is gone, so nothing changes.
        try await first.finishWebhookDelivery(claimed, by: "a", at: later, outcome: .delivered(status: 200))
        #expect(
            try await first.webhookDeliveries(endpointID: endpoint, state: .delivered, before: nil, limit: 10).isEmpty)
        try await second.finishWebhookDelivery(taken, by: "b", at: later, outcome: .delivered(status: 204))
        let delivered = try await first.webhookDeliveries(
            endpointID: endpoint, state: .delivered, before: nil, limit: 10)
        #expect(delivered.map(\.lastStatus) == [204])
    }

    @Test(arguments: StoreKind.allCases) func aFailedDeliveryIsRedeliveredFromScratch(_ kind: StoreKind) async throws {
        let (store, _, endpoint) = try await Self.queued(kind)
        let claimed = try #require(try await Self.claim(store, "a").first)
        try await store.finishWebhookDelivery(
            claimed, by: "a", at: Date(), outcome: .failed(status: 500, error: "HTTP 500", retryAt: nil))
        #expect(try await Self.claim(store, "a").isEmpty)
        let failed = try await store.webhookDeliveries(endpointID: endpoint, state: .failed, before: nil, limit: 10)
        #expect(failed.map(\.attempts) == [1] && failed.first?.lastError == "HTTP 500")
        let queued = try await store.redeliverWebhook(deliveryID: claimed.deliveryID, endpointID: endpoint, at: Date())
        #expect(queued?.state == .pending && queued?.attempts == 0)
        #expect(try await Self.claim(store, "a").map(\.deliveryID) == [claimed.deliveryID])
    }

    @Test(arguments: StoreKind.allCases) func aGoneEndpointIsDisabledWithItsPendingDeliveries(
        _ kind: StoreKind
    ) async throws {
        let (store, _, endpoint) = try await Self.queued(kind)
        _ = try await store.insertCall(
            StoreConformanceTests.ringingCall(caller: "carol"), events: [], idempotencyKey: nil)
        let claimed = try await Self.claim(store, "a")
        #expect(claimed.count == 2)
        try await store.finishWebhookDelivery(claimed[0], by: "a", at: Date(), outcome: .endpointGone)
        #expect(try await store.webhookEndpoint(id: endpoint)?.info.disabledReason == "gone")
        let failed = try await store.webhookDeliveries(endpointID: endpoint, state: .failed, before: nil, limit: 10)
        #expect(failed.count == 2)
    }
}

/// What the review of step 4 found (decision 0009, "Progress"), each a rule of the outbox's claims.
@Suite struct WebhookClaimReviewTests {
    /// A second endpoint beside ``WebhookClaimTests/queued(_:)``'s, with the same call's event queued for it too.
    static func twoEndpoints(_ kind: StoreKind) async throws -> (SQLStore, busy: String, other: String) {
        let (store, _, busy) = try await WebhookClaimTests.queued(kind)
        let now = Date()
        let other = StoredWebhookEndpoint(
            info: WebhookEndpoint(
                endpointID: WebhookEndpoints.newID(), url: "http://127.0.0.1:9/other", eventTypes: [], description: nil,
                enabled: true, createdAt: now, updatedAt: now),
            sealedSecret: "sealed")
        try await store.insertWebhookEndpoint(other)
        _ = try await store.insertCall(
            StoreConformanceTests.ringingCall(caller: "carol"), events: [], idempotencyKey: nil)
        return (store, busy, other.info.endpointID)
    }

    @Test(arguments: StoreKind.allCases) func anEndpointWithEveryFreeSlotTakenHidesNoOtherEndpoint(
        _ kind: StoreKind
    ) async throws {
        let (store, busy, other) = try await Self.twoEndpoints(kind)
        // `busy` has all its slots in flight here: only the other endpoint's deliveries are claimed, however many of
        // `busy`'s are due.
        let claimed = try await store.claimWebhookDeliveries(
            at: Date(), by: "a", lease: 60, limit: 1, perEndpoint: 4, inFlight: [busy: 4], nodeDeadAfter: 10)
        #expect(claimed.map(\.endpoint.info.endpointID) == [other])
    }

    @Test(arguments: StoreKind.allCases) func aDisabledEndpointsDeliveriesFailAndAreNeverClaimed(
        _ kind: StoreKind
    ) async throws {
        let (store, busy, other) = try await Self.twoEndpoints(kind)
        let endpoint = try #require(try await store.webhookEndpoint(id: busy))
        _ = try await store.updateWebhookEndpoint(
            id: busy, url: endpoint.info.url, eventTypes: [], description: nil, enabled: false, at: Date())
        let failed = try await store.webhookDeliveries(endpointID: busy, state: .failed, before: nil, limit: 10)
        #expect(failed.count == 2 && failed.allSatisfy { $0.lastError == "the endpoint was disabled" })
        #expect(try await WebhookClaimTests.claim(store, "a").allSatisfy { $0.endpoint.info.endpointID == other })
        // Its secret is untouched by the change.
        #expect(try await store.webhookEndpoint(id: busy)?.sealedSecret == endpoint.sealedSecret)
    }

    @Test(arguments: StoreKind.allCases) func aChangeThatSaysNothingOfEnabledLeavesAGoneEndpointDisabled(
        _ kind: StoreKind
    ) async throws {
        let (store, _, endpoint) = try await WebhookClaimTests.queued(kind)
        let claimed = try #require(try await WebhookClaimTests.claim(store, "a").first)
        try await store.finishWebhookDelivery(claimed, by: "a", at: Date(), outcome: .endpointGone)
        // A backend's PUT that raced the 410 and left `enabled` out.
        let changed = try await store.updateWebhookEndpoint(
            id: endpoint, url: "http://127.0.0.1:9/moved", eventTypes: [], description: nil, enabled: nil, at: Date())
        #expect(changed?.info.enabled == false && changed?.info.disabledReason == "gone")
        #expect(changed?.info.url == "http://127.0.0.1:9/moved")
        let enabled = try await store.updateWebhookEndpoint(
            id: endpoint, url: "http://127.0.0.1:9/moved", eventTypes: [], description: nil, enabled: true, at: Date())
        #expect(enabled?.info.enabled == true && enabled?.info.disabledReason == nil)
    }

    @Test(arguments: StoreKind.allCases) func aClaimThatLapsedAndWasTakenAgainByTheSameServerIsFenced(
        _ kind: StoreKind
    ) async throws {
        let (store, _, endpoint) = try await WebhookClaimTests.queued(kind)
        let first = try #require(try await WebhookClaimTests.claim(store, "a").first)
        // The lease (60 s) runs out; the same server claims the delivery again.
        let later = Date().addingTimeInterval(61)
        let second = try #require(try await WebhookClaimTests.claim(store, "a", at: later).first)
        #expect(second.deliveryID == first.deliveryID && second.claim != first.claim)
        try await store.finishWebhookDelivery(first, by: "a", at: later, outcome: .delivered(status: 200))
        #expect(
            try await store.webhookDeliveries(endpointID: endpoint, state: .delivered, before: nil, limit: 10).isEmpty)
        try await store.finishWebhookDelivery(second, by: "a", at: later, outcome: .delivered(status: 200))
        let delivered = try await store.webhookDeliveries(
            endpointID: endpoint, state: .delivered, before: nil, limit: 10)
        #expect(delivered.map(\.attempts) == [1])
    }

    @Test(arguments: StoreKind.allCases) func aServersOwnClaimIsNeverTakenForADeadOnes(_ kind: StoreKind) async throws {
        let (store, _, _) = try await WebhookClaimTests.queued(kind)
        _ = try #require(try await WebhookClaimTests.claim(store, "a").first)
        // "a"'s heartbeat is 11 s old (a long sweep), its lease still runs: it does not claim its own attempt again.
        #expect(try await WebhookClaimTests.claim(store, "a", at: Date().addingTimeInterval(11)).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aPostponedDeliveryCountsNoAttempt(_ kind: StoreKind) async throws {
        let (store, _, endpoint) = try await WebhookClaimTests.queued(kind)
        let claimed = try #require(try await WebhookClaimTests.claim(store, "a").first)
        try await store.finishWebhookDelivery(
            claimed, by: "a", at: Date(), outcome: .postponed(error: "no key", retryAt: Date().addingTimeInterval(-1)))
        let again = try #require(try await WebhookClaimTests.claim(store, "b").first)
        #expect(again.attempts == 0)
        let pending = try await store.webhookDeliveries(endpointID: endpoint, state: .pending, before: nil, limit: 10)
        #expect(pending.first?.lastError == "no key")
    }
}

/// The device event, written with the dead token's removal.
@Suite struct WebhookDeviceEventTests {
    @Test(arguments: StoreKind.allCases) func aDeadTokensRemovalTellsTheBackendWhoseDeviceButNotTheToken(
        _ kind: StoreKind
    ) async throws {
        let (store, _, endpoint) = try await WebhookClaimTests.queued(kind)
        let registered = Date().addingTimeInterval(-60)
        _ = try await store.registerDevice(
            Device(
                deviceID: "bob-pixel", userID: "bob", platform: .android, fcmToken: "dead-token", updatedAt: registered)
        )
        #expect(try await store.removeDeadPushToken("dead-token", kind: .fcm, invalidSince: Date()))
        let deliveries = try await store.webhookDeliveries(endpointID: endpoint, state: nil, before: nil, limit: 10)
        #expect(deliveries.map(\.eventType) == [.devicePushTokenRemoved, .callCreated])
        let claimed = try await WebhookClaimTests.claim(store, "a")
        let payload = try #require(claimed.first { $0.payload.contains("device.push_token_removed") }?.payload)
        let event = try RingerJSON.decode(WebhookPayload.self, from: Data(payload.utf8))
        #expect(event.data.userID == "bob" && event.data.deviceID == "bob-pixel" && event.data.tokenKind == "fcm_token")
        #expect(event.data.call == nil && !payload.contains("dead-token"))
        // A token registered again since the provider's answer is kept, and nothing is told.
        _ = try await store.registerDevice(
            Device(deviceID: "bob-pixel", userID: "bob", platform: .android, fcmToken: "fresh", updatedAt: Date()))
        #expect(try await !store.removeDeadPushToken("fresh", kind: .fcm, invalidSince: registered))
        #expect(try await store.webhookDeliveries(endpointID: endpoint, state: nil, before: nil, limit: 10).count == 2)
    }
}

/// The retry schedule (``WebhookRetryRule``), as Standard Webhooks' example.
@Suite struct WebhookRetryRuleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSuccessDeliversA410DisablesAnythingElseRetries() {
        let rule = WebhookRetryRule()
        #expect(rule.decide(status: 204, attempts: 1, retryAfter: nil, now: now, jitter: 0.5) == .delivered)
        #expect(rule.decide(status: 410, attempts: 1, retryAfter: nil, now: now, jitter: 0.5) == .endpointGone)
        for status in [nil, 301, 400, 429, 500, 503] as [Int?] {
            #expect(
                rule.decide(status: status, attempts: 1, retryAfter: nil, now: now, jitter: 0.5)
                    == .retry(at: now.addingTimeInterval(5)))
        }
    }

    @Test func theWaitsFollowTheScheduleWithinTenPercentThenStop() {
        let rule = WebhookRetryRule()
        let expected: [TimeInterval] = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]
        for (index, wait) in expected.enumerated() {
            #expect(
                rule.decide(status: 500, attempts: index + 1, retryAfter: nil, now: now, jitter: 0)
                    == .retry(at: now.addingTimeInterval(wait * 0.9)))
            #expect(
                rule.decide(status: 500, attempts: index + 1, retryAfter: nil, now: now, jitter: 1)
                    == .retry(at: now.addingTimeInterval(wait * 1.1)))
        }
        #expect(rule.maximumAttempts == 10)
        #expect(rule.decide(status: 500, attempts: 10, retryAfter: nil, now: now, jitter: 0.5) == .failed)
    }

    @Test func retryAfterIsTheEarliestNextAttemptUpToADay() {
        let rule = WebhookRetryRule()
        #expect(
            rule.decide(status: 429, attempts: 1, retryAfter: 60, now: now, jitter: 0.5)
                == .retry(at: now.addingTimeInterval(60)))
        // A shorter Retry-After does not hurry the schedule; an absurd one waits a day.
        #expect(
            rule.decide(status: 429, attempts: 2, retryAfter: 1, now: now, jitter: 0.5)
                == .retry(at: now.addingTimeInterval(300)))
        #expect(
            rule.decide(status: 503, attempts: 1, retryAfter: 9_999_999, now: now, jitter: 0.5)
                == .retry(at: now.addingTimeInterval(86_400)))
    }
}

/// A `ringer serve` killed (SIGKILL) while a delivery is on its way: the event was committed with the call, so the
/// next server on the database delivers it, and the receiver, de-duplicating by `webhook-id`, has each event once.
@Suite(.serialized) struct WebhookCrashTests {
    @Test func aServerKilledBetweenCommitAndDeliveryLosesNoEvent() async throws {
        let receiver = try await WebhookDeliveryTests.Receiver.start()
        // The first attempts hang at the receiver, so the server dies with them in flight.
        try await receiver.configure(#"{"delay":30}"#)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = [
            "RINGER_DATABASE": directory.appendingPathComponent("ringer.sqlite").path,
            "RINGER_SECRETS_KEY": Data(WebhookEndpointTests.secretsKey).base64EncodedString(),
            "RINGER_WEBHOOK_ALLOW_HTTP": "on", "RINGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "on",
            "RINGER_WEBHOOK_TIMEOUT": "60",
        ]
        let first = try ServedRinger(environment: environment)
        #expect(await first.waitUntilHealthy())
        let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(first.port)")!)
        let key = try
            (try await http.send(
                "POST", "/v1/api-keys", token: first.adminKey,
                json: #"{"name":"backend","scopes":["webhooks:write","calls:write","tokens:write"]}"#)).decode(
                CreatedAPIKey.self
            ).key
        let made = try await WebhookEndpointTests.endpoint(http, key: key, types: ["call.created"], url: receiver.url)
        try await receiver.configure(#"{"secrets":["\#(made.secret)"]}"#)
        let bob = try (try await http.send("POST", "/v1/tokens", token: key, json: #"{"user_id":"bob"}"#)).decode(
            TokenResponse.self
        ).token
        try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
        var ids: Set<String> = []
        for caller in ["alice", "carol", "dave"] {
            let placed = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"\#(caller)","callee":"bob"}"#)
            ids.insert(try placed.decode(Call.self).callID)
        }
        // The attempts reached the receiver and hang there; the server dies with them.
        _ = try await receiver.wait { $0.count >= 3 }
        kill(first.process.processIdentifier, SIGKILL)
        first.stop()
        try await receiver.configure(#"{"delay":0}"#)
        // A new server on the same database: the dead one's claims lapse once its heartbeat is 10 s old.
        let second = try ServedRinger(environment: environment)
        defer { second.stop() }
        #expect(await second.waitUntilHealthy())
        let records = try await receiver.wait(seconds: 40) { records in
            Set(records.filter { $0.answered == 200 && $0.at > 0 }.map(\.id)).count >= 3
                && records.count >= 6
        }
        // Every event arrived again after the crash, verified; once each after de-duplication by webhook-id.
        #expect(records.allSatisfy { $0.verifiedBy == [0] })
        #expect(Set(records.compactMap(\.callId)) == ids)
        #expect(Set(records.map(\.id)).count == 3)
        #expect(records.count == 6)
        await receiver.peer.stop()
    }
}
