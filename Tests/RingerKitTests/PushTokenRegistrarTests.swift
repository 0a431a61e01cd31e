import Foundation
import RingerSupport
import RingerKit
import RingerWire
import Testing

/// Collects values handed over from any thread.
final class Collected<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is guarded by `lock`.
    private let lock = NSLock()
    private var items: [Value] = []

    func append(_ value: Value) { lock.withLock { items.append(value) } }
    var all: [Value] { lock.withLock { items } }
}

@Suite struct PushTokenRegistrarTests {
    let server = FakeDeviceServer()
    let observations = Collected<PushTokenRegistrar.Observation>()
    let sleeps = Collected<TimeInterval>()
    let base = URL(string: "http://127.0.0.1:1")!

    /// A registrar with no jitter whose backoff sleeps are recorded and skipped.
    func registrar(sleep: (@Sendable (TimeInterval) async throws -> Void)? = nil) -> PushTokenRegistrar {
        let sleeps = sleeps
        let observations = observations
        return PushTokenRegistrar(
            deviceID: "bob-iphone", platform: .ios, bundleID: "com.example.app",
            apnsEnvironment: .sandbox, backoff: .init(initialDelay: 1, maximumDelay: 60), random: { 0 },
            sleep: sleep ?? { sleeps.append($0) }, observer: { observations.append($0) })
    }

    func api(_ user: String) -> RingerAPIClient { RingerAPIClient(baseURL: base, userToken: user, transport: server) }

    /// Every request carried a user token: nothing is ever sent on behalf of nobody.
    func expectAllAuthorized() {
        for request in server.requests {
            #expect(
                request.authorization?.hasPrefix("Bearer ") == true && request.authorization != "Bearer ",
                "\(request.method) \(request.path) without a user token")
        }
    }

    func summary() -> [String] {
        server.requests.map { request in
            let tokens = [request.registration?.voipToken, request.registration?.apnsToken].map { $0 ?? "-" }
            return "\(request.method) \(request.path)"
                + (request.registration == nil ? "" : " \(tokens.joined(separator: ","))")
        }
    }

    @Test func tokenBeforeLoginIsKeptAndSentOnceAfterLogin() async {
        let registrar = registrar()
        registrar.setToken(Data([0xab, 0x01]), for: .voip)
        registrar.setToken("cafe", for: .apns)
        await registrar.waitUntilIdle()
        #expect(server.requests.isEmpty)
        #expect(registrar.status.isLoggedIn == false)

        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        registrar.setToken("ab01", for: .voip)  // PushKit re-delivers the same token on every launch
        await registrar.waitUntilIdle()

        #expect(summary() == ["PUT /v1/devices/bob-iphone ab01,cafe"])
        let stored = server.registration(user: "bob", device: "bob-iphone")
        #expect(
            stored?.bundleID == "com.example.app" && stored?.apnsEnvironment == .sandbox && stored?.platform == .ios)
        #expect(registrar.status.registeredDevice?.voipToken == "ab01")
        #expect(registrar.status.isSyncing == false)
        expectAllAuthorized()
    }

    @Test func rotationReRegistersWithTheNewToken() async {
        let registrar = registrar()
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        #expect(server.requests.isEmpty)  // logged in, but no token yet: nothing to register
        registrar.setToken("aa", for: .voip)
        await registrar.waitUntilIdle()
        registrar.setToken("bb", for: .voip)
        await registrar.waitUntilIdle()

        #expect(summary() == ["PUT /v1/devices/bob-iphone aa,-", "PUT /v1/devices/bob-iphone bb,-"])
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "bb")
        #expect(registrar.status.registeredDevice?.voipToken == "bb")
        expectAllAuthorized()
    }

    @Test func invalidationRemovesTheTokenThenTheDevice() async {
        let registrar = registrar()
        registrar.setToken("aa", for: .voip)
        registrar.setToken("cc", for: .apns)
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        registrar.invalidateToken(.voip)
        await registrar.waitUntilIdle()
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == nil)
        #expect(server.registration(user: "bob", device: "bob-iphone")?.apnsToken == "cc")
        registrar.invalidateToken(.apns)
        await registrar.waitUntilIdle()

        #expect(
            summary() == [
                "PUT /v1/devices/bob-iphone aa,cc", "PUT /v1/devices/bob-iphone -,cc",
                "DELETE /v1/devices/bob-iphone",
            ])
        #expect(server.registration(user: "bob", device: "bob-iphone") == nil)
        #expect(registrar.status.registeredDevice == nil)
        #expect(observations.all.last == .unregistered(deviceID: "bob-iphone"))
        expectAllAuthorized()
    }

    @Test func logoutUnregistersAndLaterTokensWaitForTheNextLogin() async {
        let registrar = registrar()
        registrar.setToken("aa", for: .voip)
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        registrar.logOut()
        await registrar.waitUntilIdle()
        #expect(server.requests.last?.method == "DELETE" && server.requests.last?.authorization == "Bearer bob")
        #expect(server.registration(user: "bob", device: "bob-iphone") == nil)
        #expect(registrar.status.isLoggedIn == false && registrar.status.registeredDevice == nil)

        registrar.setToken("bb", for: .voip)
        registrar.logOut()  // nobody logged in: nothing to do
        await registrar.waitUntilIdle()
        #expect(server.requests.count == 2)

        registrar.logIn(api("carol"))
        await registrar.waitUntilIdle()
        #expect(
            summary() == [
                "PUT /v1/devices/bob-iphone aa,-", "DELETE /v1/devices/bob-iphone",
                "PUT /v1/devices/bob-iphone bb,-",
            ])
        #expect(server.requests.last?.authorization == "Bearer carol")
        expectAllAuthorized()
    }

    @Test func logoutDuringAnInFlightRegistrationStillUnregisters() async throws {
        let registrar = registrar()
        server.holdNextRequest()
        registrar.setToken("aa", for: .voip)
        registrar.logIn(api("bob"))
        try await server.waitUntilHeld()
        registrar.logOut()
        server.releaseHeld()
        await registrar.waitUntilIdle()

        #expect(summary() == ["PUT /v1/devices/bob-iphone aa,-", "DELETE /v1/devices/bob-iphone"])
        #expect(server.requests.allSatisfy { $0.authorization == "Bearer bob" })
        #expect(server.registration(user: "bob", device: "bob-iphone") == nil)
        #expect(server.maxInFlight == 1)
    }

    @Test func transientFailuresAreRetriedWithGrowingBackoff() async {
        let registrar = registrar()
        server.fail(.status(503), .noAnswer)
        registrar.setToken("aa", for: .voip)
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()

        #expect(summary() == Array(repeating: "PUT /v1/devices/bob-iphone aa,-", count: 3))
        #expect(sleeps.all == [0.5, 1.0])  // jitter 0: half of 1 s, then half of 2 s
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "aa")
        let retries = observations.all.filter { if case .retrying = $0 { true } else { false } }
        #expect(retries.count == 2)
        if case .registered(let device)? = observations.all.last {
            #expect(device.userID == "bob")
        } else {
            Issue.record("last observation \(String(describing: observations.all.last))")
        }
        expectAllAuthorized()
    }

    @Test func refusedRegistrationIsNotRetriedUntilTheTokensChange() async {
        let registrar = registrar()
        server.fail(.status(400))
        registrar.setToken("aa", for: .voip)
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        #expect(server.requests.count == 1 && sleeps.all.isEmpty)
        #expect(registrar.status.registeredDevice == nil)
        #expect(
            observations.all.count == 1
                && observations.all.first.map { if case .failed = $0 { true } else { false } } == true)

        registrar.setToken("bb", for: .voip)
        await registrar.waitUntilIdle()
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "bb")
    }

    @Test func rotationDuringAnInFlightRegistrationCoalescesToTheNewest() async throws {
        let registrar = registrar()
        server.holdNextRequest()
        registrar.setToken("t1", for: .voip)
        registrar.logIn(api("bob"))
        try await server.waitUntilHeld()
        registrar.setToken("t2", for: .voip)
        registrar.setToken("t3", for: .voip)
        #expect(registrar.status.isSyncing)
        server.releaseHeld()
        await registrar.waitUntilIdle()

        #expect(summary() == ["PUT /v1/devices/bob-iphone t1,-", "PUT /v1/devices/bob-iphone t3,-"])
        #expect(server.maxInFlight == 1)
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "t3")
        #expect(registrar.status.registeredDevice?.voipToken == "t3")
        expectAllAuthorized()
    }

    @Test func aChangeDuringBackoffAbandonsTheStaleRetryAtOnce() async throws {
        let registrar = registrar(sleep: { _ in try await Task.sleep(for: .seconds(30)) })
        server.fail(.status(503))
        registrar.setToken("t1", for: .voip)
        registrar.logIn(api("bob"))
        for _ in 0..<5000 where !observations.all.contains(where: { if case .retrying = $0 { true } else { false } }) {
            try await Task.sleep(for: .milliseconds(1))
        }
        let started = Date()
        registrar.setToken("t2", for: .voip)
        await registrar.waitUntilIdle()

        #expect(Date().timeIntervalSince(started) < 5)  // the 30 s backoff was cut short
        #expect(summary() == ["PUT /v1/devices/bob-iphone t1,-", "PUT /v1/devices/bob-iphone t2,-"])
        #expect(server.registration(user: "bob", device: "bob-iphone")?.voipToken == "t2")
    }

    @Test func androidSendsOnlyTheFCMToken() async {
        let registrar = PushTokenRegistrar(deviceID: "pixel", platform: .android)
        registrar.setToken("fcm-1", for: .fcm)
        registrar.setToken("stray", for: .voip)
        registrar.logIn(api("bob"))
        await registrar.waitUntilIdle()
        let request = server.requests.first
        #expect(server.requests.count == 1 && request?.registration?.fcmToken == "fcm-1")
        #expect(request?.registration?.voipToken == nil && request?.registration?.platform == .android)
    }

    @Test func backoffIsCappedAndJittered() {
        let half = PushTokenRegistrar.Backoff(initialDelay: 1, maximumDelay: 8)
        #expect((1...6).map { half.delay(beforeRetry: $0, random: 1) } == [1, 2, 4, 8, 8, 8])
        #expect(PushTokenRegistrar.Tokens(voip: "secret").description == "Tokens(voip)")
    }
}
