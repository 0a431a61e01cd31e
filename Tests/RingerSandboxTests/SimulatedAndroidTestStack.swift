import Foundation
import RingerKit
import RingerSupport
import RingerSandbox
import RingerServer
import RingerWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stands in for the FCM sandbox: keeps each registered device (and its `deliver` closure) and records what
/// the phone told it, so tests deliver messages the way the sandbox does.
final class FakeFCMRegistry: FCMSandboxRegistry {
    private struct Log {
        var devices: [String: FCMSandboxDevice] = [:]
        var reachability: [FCMSandboxDevice.Reachability] = []
        var unregistered: [String] = []
    }

    private let log = LockedValue(Log())

    func register(_ device: FCMSandboxDevice) { log.withLock { $0.devices[device.token] = device } }

    func setReachability(token: String, _ reachability: FCMSandboxDevice.Reachability) {
        log.withLock { log in
            log.devices[token]?.reachability = reachability
            log.reachability.append(reachability)
        }
    }

    func unregister(token: String, at date: Date) {
        log.withLock { log in
            log.devices[token]?.unregisteredAt = date
            log.unregistered.append(token)
        }
    }

    /// Every reachability the phones reported, in order.
    var reachabilityChanges: [FCMSandboxDevice.Reachability] { log.withLock { $0.reachability } }

    /// Tokens deleted so far.
    var unregistered: [String] { log.withLock { $0.unregistered } }

    /// The registered device for a token.
    func device(_ token: String) -> FCMSandboxDevice? { log.withLock { $0.devices[token] } }

    /// Hands a message to its token's phone, as the sandbox does when it is due.
    func deliver(_ message: FCMSandboxMessage) async -> FCMSandboxReceipt? {
        guard let deliver = device(message.token)?.deliver else { return nil }
        return await deliver(message)
    }
}

/// The FCM messages the Ringer server sends (docs/fcm.md), built for tests.
enum FCMTestMessage {
    /// The ringing message: data-only, `ringer` = the VoIP push's body as a string.
    static func ringing(
        _ call: Call, to phone: SimulatedAndroidPhone, requested: FCMSandboxMessage.Priority = .high,
        delivered: FCMSandboxMessage.Priority? = nil
    ) -> FCMSandboxMessage {
        let body = VoIPPush.Body(
            callId: call.callId, caller: call.caller, calleeId: call.callee.id, hasVideo: call.hasVideo,
            sentAt: Date().unixMilliseconds, expiresAt: call.expiresAt.unixMilliseconds)
        return message(
            body, to: phone, requested: requested, delivered: delivered ?? requested,
            ttl: max(1, call.expiresAt.timeIntervalSinceNow.rounded(.up)))
    }

    /// A data message about a call that changed (`call.cancelled`, `call.answered_elsewhere`, …): data-only, high priority.
    static func update(_ type: EventType, _ call: Call, to phone: SimulatedAndroidPhone) -> FCMSandboxMessage {
        message(
            AlertOrBackgroundPush.Body(type: type, callId: call.callId), to: phone, requested: .high, delivered: .high,
            ttl: max(1, call.expiresAt.timeIntervalSinceNow.rounded(.up)))
    }

    /// The missed call: normal priority with a `notification` block the system shows by itself.
    static func missedCall(_ call: Call, to phone: SimulatedAndroidPhone) -> FCMSandboxMessage {
        var missed = message(
            AlertOrBackgroundPush.Body(type: .callUnanswered, callId: call.callId), to: phone, requested: .normal,
            delivered: .normal, ttl: 86_400)
        missed.notification = .init(title: "Missed call", body: call.caller.name ?? call.caller.id)
        return missed
    }

    private static func message(
        _ body: some Encodable, to phone: SimulatedAndroidPhone, requested: FCMSandboxMessage.Priority,
        delivered: FCMSandboxMessage.Priority, ttl: TimeInterval
    ) -> FCMSandboxMessage {
        let ringer = String(decoding: try! RingerJSON.encode(body), as: UTF8.self)
        return FCMSandboxMessage(
            name: "projects/\(phone.identity.projectID)/messages/\(UUID().uuidString)",
            projectID: phone.identity.projectID, token: phone.identity.fcmToken,
            data: ["ringer": ringer], requestedPriority: requested, priority: delivered, ttl: ttl,
            acceptedAt: Date())
    }
}

/// A real Ringer server on a loopback port (SQLite in a temporary folder, no push provider) for simulated
/// Android phones: the phones register, hold their event stream and make their call requests to it.
final class AndroidTestStack: Sendable {
    static let adminKey = "android-test-admin-key"

    let server: RingerServer
    let url: URL
    let registry = FakeFCMRegistry()
    private let directory: URL
    private let webSockets = LWSWebSocketTransport()
    private let phones = LockedValue<[SimulatedAndroidPhone]>([])

    private init(server: RingerServer, url: URL, directory: URL) {
        self.server = server
        self.url = url
        self.directory = directory
    }

    /// Starts the server.
    /// - Parameter ringTimeout: seconds a call rings.
    static func start(ringTimeout: TimeInterval = 30) async throws -> AndroidTestStack {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-android-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
        config.adminKey = adminKey
        config.userTokenSecret = String(repeating: "s", count: 32)
        config.ringTimeout = ringTimeout
        let server = try RingerServer(configuration: config, logger: .silent())
        let port = try await server.start()
        return AndroidTestStack(server: server, url: URL(string: "http://127.0.0.1:\(port)")!, directory: directory)
    }

    /// A user token minted through the admin API.
    func token(_ user: String, name: String? = nil) async throws -> String {
        var request = URLRequest(url: url.appendingPathComponent("v1/tokens"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + Self.adminKey, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try RingerJSON.encode(CreateTokenRequest(userId: user, name: name, ttlSeconds: 3600))
        let (data, _) = try await URLSession.shared.data(for: request)
        return try RingerJSON.decode(TokenResponse.self, from: data).token
    }

    /// The API of a user who only calls (an app with no phone in the test).
    func api(_ user: String, name: String? = nil) async throws -> RingerAPIClient {
        RingerAPIClient(baseURL: url, userToken: try await token(user, name: name))
    }

    /// An Android phone for `user`, installed, logged in and registered, app in the foreground with its socket
    /// up (the server has its stream before this returns).
    func phone(
        _ user: String = "bob", deviceID: String = "bob-android", behaviour: SimulatedAndroidPhone.Behaviour = .ignore,
        permissions: Set<AndroidPermission> = Set(AndroidPermission.allCases),
        observe: @escaping @Sendable (SimulatedAndroidPhone.Observation) -> Void = { _ in }
    )
        async throws -> SimulatedAndroidPhone
    {
        let phone = SimulatedAndroidPhone(
            identity: .init(userID: user, deviceID: deviceID), server: url,
            userToken: try await token(user, name: user.capitalized), webSockets: webSockets,
            behaviour: behaviour, permissions: permissions, observe: observe)
        phones.withLock { $0.append(phone) }
        try await phone.installAndLogIn(registry: registry)
        _ = await waitFor { await self.server.hasEventStream(userID: user, deviceID: deviceID) }
        return phone
    }

    /// A second device of `user` in the foreground, holding its socket, so the user is online when called: this
    /// server has no FCM provider configured, and calls a user none of whose devices it can reach fail at once.
    /// The phone under test then gets its FCM messages from the test.
    @discardableResult
    func companion(of user: String = "bob") async throws -> SimulatedAndroidPhone {
        try await phone(user, deviceID: "\(user)-tablet")
    }

    /// Whether `user`'s device holds its event stream, as the server sees it, once it settles.
    func holdsStream(_ phone: SimulatedAndroidPhone, _ expected: Bool) async -> Bool {
        await waitFor {
            await self.server.hasEventStream(userID: phone.identity.userID, deviceID: phone.identity.deviceID)
                == expected
        }
    }

    /// Force-stops the phones, stops the server and removes its folder.
    func shutdown() async {
        for phone in phones.withLock({ $0 }) { phone.setAppState(.forceStopped) }
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Polls an async condition every 20 ms until it holds or `seconds` pass.
func waitFor(within seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
