internal import RingerKit
internal import RingerWire

/// What JavaScript is told about one call the coordinator holds: who placed it, the other party, video.
struct CallSummary: Sendable, Hashable {
    /// Who placed the call.
    var direction: PhoneCallMachine.Direction
    /// The other party: the caller of an incoming call, the callee of an outgoing one.
    var peer: Party
    /// Whether the call offers video.
    var hasVideo: Bool
    /// An incoming group call's `group` from its push: the count rung and some of the others; nil otherwise.
    var group: VoIPPush.Group? = nil
    /// An incoming call that rang while this user was in another call (the server's `waiting`).
    var waiting = false
}

/// Turns what the SDK observed into the events JavaScript receives (``BridgeEvent``), pinned by
/// TestVectors/react-native/events.json; the Kotlin half's `EventTranslator` follows the same rules. A pure value:
/// no I/O, no clock, not thread-safe (its owner serialises the inputs).
///
/// Rules:
/// - An incoming call is `incoming` when it rings (`ringing`), an outgoing one `outgoing` when `startCall` placed it
///   ringing (``Input/callStarted(callID:)``); from then on JavaScript has heard of the call, and another
///   announcement of it adds nothing.
/// - The translator remembers every call it saw among `calls` (the coordinator's calls at each input), the newest
///   ``rememberedCalls``, until the call ends. An `accepted`, `ringing` or `ended` of a call JavaScript has not heard
///   of comes after the call's `incoming` or `outgoing` from that memory (an answer restored after a relaunch never
///   rings again; the callee's phone can ring before `startCall` returns); of a call it never saw (a late push for a
///   call already over, handled natively) nothing is told.
/// - `ringing` once per outgoing call, at the server's first `call.ringing`.
/// - `accepted` at `mediaCanStart`, with the call's direction; the answers before it say nothing.
/// - `ended` with the SDK's reason or `local`, and the server's word on the call: the `end_reason` it reported, else
///   the final state it last reported, else null.
/// - The stream's state, the readiness problems, failed requests and call back requests pass through; a push's
///   disposition and the answers before media say nothing.
struct EventTranslator: Sendable {
    /// One thing that happened.
    enum Input: Sendable, Equatable {
        /// What the coordinator observed.
        case observation(CallCoordinator.Observation)
        /// The event stream's state changed.
        case streamStatus(EventStream.Status)
        /// The readiness pre-flight found these problems (names as the server spells them).
        case readiness([String])
        /// `startCall` resolved with a ringing call.
        case callStarted(callID: String)
        /// The user tapped one of the app's calls in the phone's Recents (``RingerReactNative/handle(userActivity:)``).
        case callBackRequested(CallBackRequest)
    }

    /// The server's word on one call: the `end_reason` and the final state it last reported.
    private struct ServerWord: Sendable {
        var endReason: String?
        var finalState: String?
    }

    /// How many calls are remembered (seen among `calls`, or with a server word), the least recently touched
    /// forgotten first: far more than ever ring at once, and calls whose end never reaches this phone (ended
    /// elsewhere while it was not told) must not pile up.
    static let rememberedCalls = 64

    /// Calls JavaScript heard of, with their direction.
    private var heard: [String: PhoneCallMachine.Direction] = [:]
    /// Outgoing calls whose `ringing` was sent.
    private var rang: Set<String> = []
    /// Every call seen among `calls` until it ends.
    private var seen = RecentCalls<CallSummary>(limit: rememberedCalls)
    /// What the server's events said of each call.
    private var serverWords = RecentCalls<ServerWord>(limit: rememberedCalls)

    /// Creates a translator that has told JavaScript nothing yet.
    init() {}

    /// The events one input makes, in order.
    /// - Parameters:
    ///   - input: what happened.
    ///   - calls: the calls the coordinator holds at this moment (not ended), by call id.
    /// - Returns: the events for JavaScript; often none.
    mutating func translate(_ input: Input, calls: [String: CallSummary]) -> [BridgeEvent] {
        for (callID, call) in calls.sorted(by: { $0.key < $1.key }) { seen.update(call, for: callID) }
        switch input {
        case .observation(let observation):
            return translate(observation)
        case .streamStatus(let status):
            return [.connectionChanged(status: Self.name(of: status))]
        case .readiness(let problems):
            return [.readinessChanged(problems: problems)]
        case .callStarted(let callID):
            return announce(callID, as: .outgoing)
        case .callBackRequested(let request):
            return [.callBackRequested(userID: request.userID, hasVideo: request.hasVideo)]
        }
    }

    private mutating func translate(_ observation: CallCoordinator.Observation) -> [BridgeEvent] {
        switch observation {
        case .ringing(let callID):
            return announce(callID, as: .incoming)
        case .mediaCanStart(let callID, let media):
            guard let told = introduce(callID), let direction = heard[callID] else { return [] }
            return told + [.accepted(callID: callID, direction: direction, media: media)]
        case .event(let event):
            let callID = event.call.callID
            remember(
                endReason: event.call.endReason?.rawValue,
                finalState: event.call.state.isLive ? nil : event.call.state.rawValue, for: callID)
            guard event.type == .callRinging, (heard[callID] ?? seen[callID]?.direction) == .outgoing,
                !rang.contains(callID), let told = introduce(callID)
            else { return [] }
            rang.insert(callID)
            return told + [.ringing(callID: callID)]
        case .ended(let callID, let reason):
            let told = introduce(callID)
            let word = serverWords.remove(callID)
            rang.remove(callID)
            heard[callID] = nil
            _ = seen.remove(callID)
            guard let told else { return [] }
            let ended = BridgeEvent.ended(
                callID: callID, reason: reason?.rawValue ?? "local", serverReason: word?.endReason ?? word?.finalState)
            return told + [ended]
        case .requestFailed(let callID, let detail):
            return [.requestFailed(callID: callID, detail: detail)]
        case .participantsChanged(let callID, let legs):
            guard let told = introduce(callID) else { return [] }
            return told + [.participants(callID: callID, participants: legs.map(BridgeParticipant.init))]
        case .pushReported, .answered, .outgoingAnswered:
            return []
        case .heldChanged(let callID, let held):
            guard let told = introduce(callID) else { return [] }
            return told + [.held(callID: callID, held: held)]
        case .mutedChanged(let callID, let muted):
            guard let told = introduce(callID) else { return [] }
            return told + [.muted(callID: callID, muted: muted)]
        case .dtmf(let callID, let digits):
            guard let told = introduce(callID) else { return [] }
            return told + [.dtmf(callID: callID, digits: digits)]
        case .audioRouteChanged(let routes):
            return [
                .audioRouteChanged(
                    current: routes.current.map(BridgeAudioOutput.init),
                    outputs: routes.outputs.map(BridgeAudioOutput.init))
            ]
        }
    }

    /// The call's `incoming` or `outgoing` when it is a call of that direction JavaScript has not heard of.
    private mutating func announce(_ callID: String, as direction: PhoneCallMachine.Direction) -> [BridgeEvent] {
        guard seen[callID]?.direction == direction else { return [] }
        return introduce(callID) ?? []
    }

    /// What JavaScript needs before any other event of a call: nothing when it heard of the call already, else the
    /// call's `incoming` or `outgoing` from what the translator saw of it (JavaScript has heard of it then).
    /// - Returns: nil when the translator never saw the call: nothing may be told of it.
    private mutating func introduce(_ callID: String) -> [BridgeEvent]? {
        guard heard[callID] == nil else { return [] }
        guard let call = seen[callID] else { return nil }
        heard[callID] = call.direction
        switch call.direction {
        case .incoming:
            return [
                .incoming(
                    callID: callID, caller: call.peer, hasVideo: call.hasVideo, group: call.group.map(BridgeGroup.init),
                    waiting: call.waiting)
            ]
        case .outgoing: return [.outgoing(callID: callID, callee: call.peer, hasVideo: call.hasVideo)]
        }
    }

    private mutating func remember(endReason: String?, finalState: String?, for callID: String) {
        guard endReason != nil || finalState != nil else { return }
        let earlier = serverWords[callID]
        serverWords.update(
            ServerWord(endReason: endReason ?? earlier?.endReason, finalState: finalState ?? earlier?.finalState),
            for: callID)
    }

    /// The name JavaScript knows a stream state by. A closed socket that reconnects by itself is `lost`; a stream
    /// the server refused for good (another 4xx at the upgrade) is `closed`, as it does not come back.
    static func name(of status: EventStream.Status) -> String {
        switch status {
        case .connected: "connected"
        case .lost, .messageTooBig: "lost"
        case .restored: "restored"
        case .closed, .refused: "closed"
        case .replaced: "replaced"
        case .unauthorized: "unauthorized"
        }
    }
}

/// Values by call id, at most ``limit``: storing one beyond forgets the least recently stored. A pure value, not
/// thread-safe; `limit` is small (``EventTranslator/rememberedCalls``), so its bookkeeping is a plain array.
struct RecentCalls<Value: Sendable>: Sendable {
    /// How many calls are kept; at least 1.
    let limit: Int
    private var values: [String: Value] = [:]
    /// The keys of `values`, least recently stored first.
    private var order: [String] = []

    /// An empty memory for `limit` calls.
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The value kept for a call.
    subscript(callID: String) -> Value? { values[callID] }

    /// Keeps `value` for `callID`, as the most recent.
    mutating func update(_ value: Value, for callID: String) {
        if values.updateValue(value, forKey: callID) != nil { order.removeAll { $0 == callID } }
        order.append(callID)
        while order.count > limit { values[order.removeFirst()] = nil }
    }

    /// Forgets a call.
    /// - Returns: what was kept for it.
    mutating func remove(_ callID: String) -> Value? {
        guard let value = values.removeValue(forKey: callID) else { return nil }
        order.removeAll { $0 == callID }
        return value
    }
}
