public import RingerKit
public import RingerWire

/// What JavaScript is told about one call the coordinator holds: who placed it, the other party, video.
public struct CallSummary: Sendable, Hashable {
    /// Who placed the call.
    public var direction: PhoneCallMachine.Direction
    /// The other party: the caller of an incoming call, the callee of an outgoing one.
    public var peer: Party
    /// Whether the call offers video.
    public var hasVideo: Bool

    /// Creates a summary.
    public init(direction: PhoneCallMachine.Direction, peer: Party, hasVideo: Bool) {
        self.direction = direction
        self.peer = peer
        self.hasVideo = hasVideo
    }
}

/// Turns what the SDK observed into the events JavaScript receives (``BridgeEvent``), pinned by
/// TestVectors/react-native/events.json; the Kotlin half's `EventTranslator` follows the same rules. A pure value:
/// no I/O, no clock, not thread-safe (its owner serialises the inputs).
///
/// Rules:
/// - An incoming call is `incoming` when it rings (`ringing`), an outgoing one `outgoing` when `startCall` placed it
///   ringing (``Input/callStarted(callID:)``); either needs the call among `calls`, the coordinator's calls at that
///   moment.
/// - `ringing` once per outgoing call, at the server's first `call.ringing`.
/// - `accepted` at `mediaCanStart`, with the call's direction; the answers before it say nothing.
/// - `ended` only for calls JavaScript heard of (a late push reported and ended natively stays native), with the
///   SDK's reason or `local`, and the server's word on the call: the `end_reason` it reported, else the final state
///   it last reported, else null.
/// - The stream's state, the readiness problems and failed requests pass through; a push's disposition and the
///   answers before media say nothing.
public struct EventTranslator: Sendable {
    /// One thing that happened.
    public enum Input: Sendable, Equatable {
        /// What the coordinator observed.
        case observation(CallCoordinator.Observation)
        /// The event stream's state changed.
        case streamStatus(EventStream.Status)
        /// The readiness pre-flight found these problems (names as the server spells them).
        case readiness([String])
        /// `startCall` resolved with a ringing call.
        case callStarted(callID: String)
    }

    /// The server's word on one call: the `end_reason` and the final state it last reported.
    private struct ServerWord: Sendable {
        var endReason: String?
        var finalState: String?
    }

    /// How many calls the server's word is kept for, oldest forgotten first: calls whose end never reaches
    /// this phone (ended elsewhere while it was not told) must not pile up.
    static let serverWordLimit = 64

    /// Calls JavaScript heard of, with their direction.
    private var known: [String: PhoneCallMachine.Direction] = [:]
    /// Outgoing calls whose `ringing` was sent.
    private var rang: Set<String> = []
    /// What the server's events said of each call, by call id.
    private var serverWords: [String: ServerWord] = [:]
    /// The ids of `serverWords`, oldest first.
    private var serverWordOrder: [String] = []

    /// Creates a translator that has told JavaScript nothing yet.
    public init() {}

    /// The events one input makes, in order.
    /// - Parameters:
    ///   - input: what happened.
    ///   - calls: the calls the coordinator holds at this moment, by call id.
    /// - Returns: the events for JavaScript; often none.
    public mutating func translate(_ input: Input, calls: [String: CallSummary]) -> [BridgeEvent] {
        switch input {
        case .observation(let observation):
            return translate(observation, calls: calls)
        case .streamStatus(let status):
            return [.connectionChanged(status: Self.name(of: status))]
        case .readiness(let problems):
            return [.readinessChanged(problems: problems)]
        case .callStarted(let callID):
            guard known[callID] == nil, let call = calls[callID], call.direction == .outgoing else { return [] }
            known[callID] = .outgoing
            return [.outgoing(callID: callID, callee: call.peer, hasVideo: call.hasVideo)]
        }
    }

    private mutating func translate(
        _ observation: CallCoordinator.Observation, calls: [String: CallSummary]
    ) -> [BridgeEvent] {
        switch observation {
        case .ringing(let callID):
            guard known[callID] == nil, let call = calls[callID], call.direction == .incoming else { return [] }
            known[callID] = .incoming
            return [.incoming(callID: callID, caller: call.peer, hasVideo: call.hasVideo)]
        case .mediaCanStart(let callID, let media):
            guard let direction = calls[callID]?.direction ?? known[callID] else { return [] }
            known[callID] = direction
            return [.accepted(callID: callID, direction: direction, media: media)]
        case .event(let event):
            let callID = event.call.callID
            remember(
                endReason: event.call.endReason?.rawValue,
                finalState: event.call.state.isLive ? nil : event.call.state.rawValue, for: callID)
            guard event.type == .callRinging, calls[callID]?.direction == .outgoing, rang.insert(callID).inserted
            else { return [] }
            return [.ringing(callID: callID)]
        case .ended(let callID, let reason):
            let word = forgetServerWord(for: callID)
            let serverReason = word?.endReason ?? word?.finalState
            rang.remove(callID)
            guard known.removeValue(forKey: callID) != nil else { return [] }
            return [.ended(callID: callID, reason: reason?.rawValue ?? "local", serverReason: serverReason)]
        case .requestFailed(let callID, let detail):
            return [.requestFailed(callID: callID, detail: detail)]
        case .pushReported, .answered, .outgoingAnswered:
            return []
        }
    }

    private mutating func remember(endReason: String?, finalState: String?, for callID: String) {
        guard endReason != nil || finalState != nil else { return }
        let earlier = serverWords[callID]
        let word = ServerWord(endReason: endReason ?? earlier?.endReason, finalState: finalState ?? earlier?.finalState)
        if serverWords.updateValue(word, forKey: callID) == nil { serverWordOrder.append(callID) }
        while serverWordOrder.count > Self.serverWordLimit {
            serverWords[serverWordOrder.removeFirst()] = nil
        }
    }

    private mutating func forgetServerWord(for callID: String) -> ServerWord? {
        guard let word = serverWords.removeValue(forKey: callID) else { return nil }
        serverWordOrder.removeAll { $0 == callID }
        return word
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
