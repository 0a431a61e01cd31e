@preconcurrency import CallKit
import Foundation
@preconcurrency import PushKit
import RingerKit
import RingerKitAppleMirrored
@testable import RingerReactNativeMirrored
import RingerTestSupport
import RingerWire
import Testing

/// A ``RingerReactNative`` host as an app runs it, on the CallKit/PushKit mirrors and a ``FakeCallServer``: its
/// files in a fresh folder, its Info.plist a dictionary, JavaScript an emitter that records.
struct HostHarness {
    let server = FakeCallServer()
    let sockets = FakeWebSockets()
    let folder: URL
    let host: RingerReactNative
    let emitted = Recorder<BridgeEvent>()
    private let phones = Recorder<RingerPhone>()

    /// Creates a host that has not started.
    /// - Parameters:
    ///   - folder: the host's files; a new temporary folder by default (a second harness on the same folder is the
    ///     app's next launch).
    ///   - infoServer: the Info.plist's `RingerServerURL`.
    ///   - problems: what the notification settings cost.
    ///   - readFile: reads the host's files (``LockedFiles/read(_:)`` for a launch before the first unlock).
    init(
        folder: URL = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-rn-\(UUID().uuidString)"),
        infoServer: String? = "http://127.0.0.1:9", problems: [ReadinessProblem] = [],
        readFile: @escaping @Sendable (URL) throws -> Data = { try Data(contentsOf: $0) }
    ) {
        self.folder = folder
        let (server, sockets, phones) = (server, sockets, phones)
        host = RingerReactNative(
            environment: RingerReactNative.Environment(
                folder: folder,
                readFile: readFile,
                info: { key in
                    switch key {
                    case "RingerServerURL": infoServer
                    case "RingerAPNsEnvironment": "sandbox"
                    default: nil
                    }
                },
                makePhone: { setup in
                    let phone = RingerPhone(
                        server: setup.server, deviceID: "bob-iphone", bundleID: "dev.ringer.demo",
                        apnsEnvironment: setup.apnsEnvironment, pendingActions: InMemoryPendingActionStore(),
                        callMemory: InMemoryCallMemoryStore(), http: server, webSockets: sockets,
                        queue: DispatchQueue(label: "test.calls"), streamStatus: setup.streamStatus,
                        observer: setup.observer)
                    // The system hands the app's own transactions to its provider.
                    phone.callKit.callController.mirrorProvider = phone.callKit.provider
                    phones.append(phone)
                    return phone
                },
                notificationProblems: { problems },
                openAppSettings: { true },
                now: { Date() }))
    }

    /// A host as most tests begin: launched (``RingerReactNative/start()``) with bob logged in.
    static func loggedIn() async throws -> HostHarness {
        let harness = HostHarness()
        harness.host.start()
        _ = try await harness.host.login(userToken: token(for: "bob"))
        return harness
    }

    /// Every phone the host created (one at most, however often it is asked).
    var createdPhones: [RingerPhone] { phones.all }

    /// The host's phone.
    func phone() throws -> RingerPhone { try #require(phones.all.last) }

    /// JavaScript attaches (`getInitialEvents()`): the replay; live events go to ``emitted`` from then on.
    func attach() -> (attachment: Int, replay: [BridgeEvent]) {
        let emitted = emitted
        return host.attach { emitted.append($0) }
    }

    /// The stored session (`session.json`) as JSON; nil when there is none.
    func storedSession() -> [String: String]? {
        let file = folder.appendingPathComponent("session.json")
        return (try? Data(contentsOf: file)).flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: String]
        }
    }

    /// Writes `session.json` as an earlier launch (or an earlier version of the package) left it.
    func storeSession(_ session: [String: String]) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: session).write(to: folder.appendingPathComponent("session.json"))
    }

    /// A user token whose subject is `user` (a compact JWT; the signature is not checked on the phone).
    static func token(for user: String, serial: Int = 0) -> String {
        let payload = try! JSONSerialization.data(withJSONObject: ["sub": user, "n": serial])
        let base64 = payload.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJIUzI1NiJ9.\(base64).c2ln"
    }

    /// Delivers a VoIP push for a new call through PushKit and waits until it rings (the server heard `ringing`).
    /// - Returns: the call id.
    /// - Parameters:
    ///   - callID: the call's id.
    ///   - group: a group call's `group`, nil for a 1:1 call.
    func ring(callID: String = UUID().uuidString.lowercased(), group: VoIPPush.Group? = nil) async throws -> String {
        let registry = try phone().pushKit.registry
        let now = Date()
        var push = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice", name: "Alice"), hasVideo: false,
                sentAt: now.unixMilliseconds, expiresAt: now.addingTimeInterval(30).unixMilliseconds))
        push.ringer.group = group
        let payload = try JSONSerialization.jsonObject(with: RingerJSON.encode(push)) as? [String: Any] ?? [:]
        #expect(registry.mirrorDeliverIncomingPush(payload) {})
        let server = server
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(callID)/ringing") == 1 })
        return callID
    }

    /// What `body` threw, as JavaScript sees it: the error's code; nil when it did not throw.
    static func code(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return RingerBridgeError(error).code
        }
    }

    /// The events of calls (not the stream's, the pre-flight's or the audio route's). Failed requests are left out too: the fake server
    /// has no `GET /v1/calls/{id}`, which the coordinator sends whenever the stream connects.
    static func callEvents(_ events: [BridgeEvent]) -> [BridgeEvent] {
        events.filter {
            switch $0 {
            case .connectionChanged, .readinessChanged, .requestFailed, .audioRouteChanged: false
            default: true
            }
        }
    }
}
