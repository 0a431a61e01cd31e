import AVFAudio
@preconcurrency import CallKit
import Foundation
@preconcurrency import PushKit
import RingerKit
import RingerKitAppleMirrored
import RingerTestSupport
import RingerWire

/// A ``RingerPhone`` running on the CallKit/PushKit mirrors against a ``FakeCallServer``: the app as it
/// is wired on an iPhone, with the system's side played by the mirrors' `mirror…` members.
struct PhoneHarness {
    let server = FakeCallServer()
    let sockets = FakeWebSockets()
    let observations = Recorder<CallCoordinator.Observation>()
    /// The phone's own audio session, whose route the test moves (`mirrorConnect`, `mirrorDisconnect`).
    let audioSession = AVAudioSession.mirrorMake()
    let phone: RingerPhone

    /// Creates the phone, logged in as "bob" unless `loggedIn` is false.
    init(loggedIn: Bool = true) {
        let observations = observations
        phone = RingerPhone(
            server: URL(string: "http://127.0.0.1:9")!, deviceID: "bob-iphone", bundleID: "dev.ringer.demo",
            apnsEnvironment: .sandbox, pendingActions: InMemoryPendingActionStore(),
            callMemory: InMemoryCallMemoryStore(), http: server,
            webSockets: sockets, queue: DispatchQueue(label: "test.calls"),
            observer: { observations.append($0) }, audioSession: audioSession)
        if loggedIn { phone.logIn(userToken: "bob") }
    }

    var provider: CXProvider { phone.callKit.provider }
    var registry: PKPushRegistry { phone.pushKit.registry }

    /// A Ringer VoIP push for `callID`, as PushKit hands it over (`PKPushPayload.dictionaryPayload`).
    static func voipPush(
        callID: String, expiresIn seconds: TimeInterval = 30, hasVideo: Bool = false, group: VoIPPush.Group? = nil
    ) -> [AnyHashable: Any] {
        let now = Date()
        let push = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice", name: "Alice"), hasVideo: hasVideo,
                sentAt: now.unixMilliseconds,
                expiresAt: now.addingTimeInterval(seconds).unixMilliseconds, group: group))
        let data = (try? RingerJSON.encode(push)) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }

    /// Delivers a VoIP push through PushKit and waits for the app to call PushKit's completion.
    /// - Returns: what the provider had been told when the completion was called.
    func deliverVoIPPush(_ payload: [AnyHashable: Any]) async -> [CXProvider.MirrorReport] {
        let provider = provider
        let registry = registry
        return await withCheckedContinuation { continuation in
            let delivered = registry.mirrorDeliverIncomingPush(payload) {
                continuation.resume(returning: provider.mirrorReports)
            }
            if !delivered { continuation.resume(returning: []) }
        }
    }

    /// Delivers a push for a new call and waits until it rings (the server acknowledged `ringing`).
    /// - Returns: the call's UUID.
    func ring(callID: String = UUID().uuidString.lowercased()) async -> UUID? {
        _ = await deliverVoIPPush(Self.voipPush(callID: callID))
        let server = server
        guard await eventually(within: 5, { server.count("POST /v1/calls/\(callID)/ringing") == 1 }) else { return nil }
        return UUID(uuidString: callID)
    }

    /// An event on the phone's event stream.
    func deliverEvent(_ type: EventType, callID: String, state: CallState, seq: Int64) throws {
        try sockets.deliver(
            CallEvent(seq: seq, type: type, call: server.call(callID, state, caller: "alice", callee: "bob")))
    }

    /// True when the coordinator reported this observation.
    func observed(_ observation: CallCoordinator.Observation) -> Bool { observations.all.contains(observation) }
}
