import Foundation
import RingerSandbox
import RingerScenarios
import RingerTestSupport
import RingerWire
import Testing

/// A provider that fails every send shows in `GET /healthz` as `degraded` (still 200) with the reason, and
/// recovers on its own: the real server, the APNs and FCM sandboxes, simulated iPhones and the FCM sandbox's
/// in-process Android devices over loopback.
@Suite(.serialized) struct ProviderOutageHealthTests {
    /// `/healthz`'s status (HTTP) and body, polled every 50 ms until `until` holds or `seconds` (real) pass.
    private static func health(
        _ http: TestHTTP, within seconds: Double = 10,
        until condition: ([String: Any]) -> Bool
    ) async throws -> (status: Int, body: [String: Any]) {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let response = try await http.send("GET", "/healthz")
            if condition(response.object) || ContinuousClock.now >= deadline {
                return (response.status, response.object)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func problems(_ body: [String: Any]) -> [[String: Any]] {
        body["push_problems"] as? [[String: Any]] ?? []
    }

    private static func isDegraded(_ body: [String: Any]) -> Bool { body["status"] as? String == "degraded" }

    private static func isOK(_ body: [String: Any]) -> Bool { body["status"] as? String == "ok" }

    @Test func everyAPNsSendAnswering503MakesHealthDegradedAndItRecovers() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        let http = TestHTTP(base: stack.serverURL)
        #expect(Self.isOK(try await http.send("GET", "/healthz").object))

        stack.sandbox.inject(APNsSandboxFault(.answer(status: 503, reason: "ServiceUnavailable"), count: nil))
        let call = try await alice.call("bob")
        let degraded = try await Self.health(http, until: Self.isDegraded)
        // Degraded, not unavailable: every server shares the provider, so a balancer must keep this one.
        #expect(degraded.status == 200)
        #expect(Self.isDegraded(degraded.body), "\(degraded.body)")
        let problem = try #require(Self.problems(degraded.body).first)
        #expect(problem["provider"] as? String == "apns")
        #expect(problem["kind"] as? String == "outage")
        #expect(problem["reason"] as? String == "ServiceUnavailable")
        #expect(problem["last_error"] as? String == "HTTP 503")
        #expect(problem["environment"] as? String == "sandbox")
        #expect(problem["topic"] as? String == bob.identity.bundleID + ".voip")
        #expect((problem["count"] as? Int).map { $0 >= 3 } == true)
        #expect(problem["last_failed_at"] is String)
        #expect(stack.sandbox.acceptedPushes.isEmpty)

        // APNs comes back: the ring's next retry is accepted, which ends the outage at once.
        stack.sandbox.clearFaults()
        let recovered = try await Self.health(http, within: 15, until: Self.isOK)
        #expect(Self.isOK(recovered.body), "\(recovered.body)")
        #expect(recovered.body["push_problems"] == nil)
        #expect(stack.sandbox.acceptedPushes.contains { $0.deviceToken == bob.identity.voipToken })
        _ = call
        await stack.shutdown()
    }

    @Test(arguments: ["UNAVAILABLE", "INTERNAL", "QUOTA_EXCEEDED"])
    func everyFCMSendAnsweringUnavailableInternalOrQuotaExceededMakesHealthDegradedAndItRecovers(
        _ code: String
    ) async throws {
        let rejection = try #require(FCMSandboxRejection(code: code))
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bobToken = try await FCMSandboxPhone.register(on: stack, user: "bob", deviceID: "bob-pixel")
        let http = TestHTTP(base: stack.serverURL)
        #expect(Self.isOK(try await http.send("GET", "/healthz").object))

        stack.fcmSandbox.inject(FCMSandboxFault(.answer(rejection), count: nil))
        _ = try await alice.call("bob")
        let degraded = try await Self.health(http, until: Self.isDegraded)
        #expect(degraded.status == 200)
        let problem = try #require(Self.problems(degraded.body).first, "\(degraded.body)")
        #expect(problem["provider"] as? String == "fcm")
        #expect(problem["project"] as? String == LocalStack.firebaseProject)
        #expect(problem["kind"] as? String == "outage")
        #expect(problem["reason"] as? String == rejection.code)
        #expect(problem["last_error"] as? String == "HTTP \(rejection.httpStatus)")
        #expect(stack.fcmSandbox.acceptedMessages.isEmpty)

        stack.fcmSandbox.clearFaults()
        let recovered = try await Self.health(http, within: 15, until: Self.isOK)
        #expect(Self.isOK(recovered.body), "\(recovered.body)")
        #expect(stack.fcmSandbox.acceptedMessages.contains { $0.token == bobToken })
        await stack.shutdown()
    }

    /// The case: the cached access token stops working (as one past its hour does: FCM answers 401), and
    /// the token endpoint never answers the new grant. The first send that could not get a token (after FCM's
    /// 5 s request timeout) already shows it: one grant serves every message, so no Android phone of the
    /// project can ring. Before, `/healthz` said `ok` for the whole ring.
    @Test func anFCMTokenEndpointThatStopsAnsweringShowsInHealthAtOnce() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bobToken = try await FCMSandboxPhone.register(on: stack, user: "bob", deviceID: "bob-pixel")
        let http = TestHTTP(base: stack.serverURL)
        #expect(Self.isOK(try await http.send("GET", "/healthz").object))

        stack.fcmSandbox.inject(FCMSandboxFault(.neverAnswer, endpoint: .token, count: nil))
        stack.fcmSandbox.revokeAccessTokens()
        let called = ContinuousClock.now
        _ = try await alice.call("bob")
        let degraded = try await Self.health(http, within: 15, until: Self.isDegraded)
        let elapsed = ContinuousClock.now - called
        #expect(degraded.status == 200)
        let problem = try #require(Self.problems(degraded.body).first, "\(degraded.body)")
        #expect(problem["provider"] as? String == "fcm")
        #expect(problem["project"] as? String == LocalStack.firebaseProject)
        #expect(problem["reason"] as? String == "TokenEndpointUnreachable")
        #expect(problem["kind"] as? String == "outage")
        #expect(problem["count"] as? Int == 1, "shown after the first send without a token")
        #expect((problem["last_error"] as? String)?.contains("access token") == true, "\(problem)")
        // The first send gives up on the token after FCM's request timeout (5 s); three sends would take 15 s.
        #expect(elapsed < .seconds(8), "\(elapsed)")
        #expect(stack.fcmSandbox.acceptedMessages.isEmpty)

        // The token endpoint answers again: the next grant succeeds, the next send is accepted, health is ok.
        stack.fcmSandbox.clearFaults()
        let recovered = try await Self.health(http, within: 20, until: Self.isOK)
        #expect(Self.isOK(recovered.body), "\(recovered.body)")
        #expect(stack.fcmSandbox.acceptedMessages.contains { $0.token == bobToken })
        await stack.shutdown()
    }

    /// Nothing sent, nothing known: a minute (server time) after the last failed send the outage leaves
    /// `/healthz` even though the provider never answered, as health says what the server knows now. On a
    /// clock 20 times faster, so the ring (with its missed-call alert) and the minute pass in seconds.
    @Test func anOutageLeavesHealthAMinuteAfterTheLastFailedSendWithoutAnAnswer() async throws {
        var options = LocalStack.Options()
        options.clock = ScenarioClock(scale: 0.05)
        options.ringTimeout = 20
        let stack = try await LocalStack.start(options)
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        let http = TestHTTP(base: stack.serverURL)

        stack.sandbox.inject(APNsSandboxFault(.answer(status: 500, reason: "InternalServerError"), count: nil))
        _ = try await alice.call("bob")
        let degraded = try await Self.health(http, until: Self.isDegraded)
        #expect(Self.problems(degraded.body).first?["reason"] as? String == "InternalServerError", "\(degraded.body)")
        // The ring (1 s real) and the missed-call alert's 30 s of retries (1.5 s) end; a minute later (3 s) it is ok,
        // with APNs still failing every push.
        let recovered = try await Self.health(http, within: 15, until: Self.isOK)
        #expect(Self.isOK(recovered.body), "\(recovered.body)")
        #expect(!stack.sandbox.activeFaults.isEmpty)
        #expect(stack.sandbox.acceptedPushes.isEmpty)
        await stack.shutdown()
    }
}
