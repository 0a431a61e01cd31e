import Foundation
internal import RingerKit
internal import RingerWire

/// One event for JavaScript, the payload of the codegen event emitter `onEvent` (docs/react-native.md, "Events"): an
/// object with a `type` and camelCase keys, `null` where a value is absent, never a missing key. Call ids are the
/// server's lowercase UUIDs. The same names and shapes as the Kotlin half (`dev.ringer.reactnative`), pinned by
/// TestVectors/react-native/events.json and relay.json.
enum BridgeEvent: Sendable, Hashable {
    /// A call rings on this phone; `group` for a group call: how many were rung and some of the others (the push's);
    /// `waiting` when it rang while this user was in another call.
    case incoming(callID: String, caller: Party, hasVideo: Bool, group: BridgeGroup? = nil, waiting: Bool = false)
    /// `startCall` placed a ringing call.
    case outgoing(callID: String, callee: Party, hasVideo: Bool)
    /// The callee's phone rings (the first server `call.ringing` of an outgoing call).
    case ringing(callID: String)
    /// Start media now (the SDK's `mediaCanStart`).
    case accepted(callID: String, direction: PhoneCallMachine.Direction, media: MediaSession)
    /// The call is over here. `reason`: the SDK's `CallEndReason` raw value, or `local` when this user ended it;
    /// `serverReason`: the server's `end_reason`, else the final state it last reported, nil when it said neither.
    case ended(callID: String, reason: String, serverReason: String?)
    /// The readiness pre-flight's problem names.
    case readinessChanged(problems: [String])
    /// The event stream's state: connected, lost, restored, closed, replaced or unauthorized.
    case connectionChanged(status: String)
    /// An API request failed for good; `detail` never holds a token.
    case requestFailed(callID: String, detail: String)
    /// Only first in a replay: how many events the full buffer dropped.
    case eventsDropped(count: Int)
    /// A group call's people and where each is (the SDK's `participantsChanged`), in the order rung.
    case participants(callID: String, participants: [BridgeParticipant])
    /// The call was held (pause its media) or resumed (the SDK's `heldChanged`).
    case held(callID: String, held: Bool)
    /// The call's microphone was muted or unmuted (the SDK's `mutedChanged`).
    case muted(callID: String, muted: Bool)
    /// Keypad tones to send in the call's media (the SDK's `dtmf`).
    case dtmf(callID: String, digits: String)
    /// Where the calls' audio goes and where it could (the SDK's `audioRouteChanged`); not about one call.
    case audioRouteChanged(current: BridgeAudioOutput?, outputs: [BridgeAudioOutput])
    /// The user tapped one of the app's calls in the phone's call history and asks to call `userID` back (RingerKit's
    /// `CallBackRequest`); the app decides whether to call. Not about a call of the coordinator's.
    case callBackRequested(userID: String, hasVideo: Bool)

    /// The `type` JavaScript narrows the union on.
    var type: String {
        switch self {
        case .incoming: "incoming"
        case .outgoing: "outgoing"
        case .ringing: "ringing"
        case .accepted: "accepted"
        case .ended: "ended"
        case .readinessChanged: "readinessChanged"
        case .connectionChanged: "connectionChanged"
        case .requestFailed: "requestFailed"
        case .eventsDropped: "eventsDropped"
        case .participants: "participants"
        case .held: "held"
        case .muted: "muted"
        case .dtmf: "dtmf"
        case .audioRouteChanged: "audioRouteChanged"
        case .callBackRequested: "callBackRequested"
        }
    }

    /// The event as React Native's bridge takes it (`NSDictionary` for `emitOnEvent:`).
    var foundationObject: [String: Any] { (BridgeJSON.foundationObject(self) as? [String: Any]) ?? [:] }
}

extension BridgeEvent: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, callId, caller, callee, hasVideo, direction, media, reason, serverReason, problems, status, detail,
            count, participants, group, held, muted, digits, current, outputs, waiting, userId
    }

    /// Decodes an event as JavaScript would read it (the test vectors' shapes).
    /// - Throws: `DecodingError` for an unknown `type` or a missing key.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        func callID() throws -> String { try container.decode(String.self, forKey: .callId) }
        switch type {
        case "incoming":
            self = .incoming(
                callID: try callID(), caller: try container.decode(BridgeParty.self, forKey: .caller).party,
                hasVideo: try container.decode(Bool.self, forKey: .hasVideo),
                group: try container.decode(BridgeGroup?.self, forKey: .group),
                waiting: try container.decode(Bool.self, forKey: .waiting))
        case "outgoing":
            self = .outgoing(
                callID: try callID(), callee: try container.decode(BridgeParty.self, forKey: .callee).party,
                hasVideo: try container.decode(Bool.self, forKey: .hasVideo))
        case "ringing":
            self = .ringing(callID: try callID())
        case "accepted":
            let direction = try container.decode(String.self, forKey: .direction)
            guard let parsed = PhoneCallMachine.Direction(rawValue: direction) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .direction, in: container, debugDescription: "not a direction")
            }
            self = .accepted(
                callID: try callID(), direction: parsed, media: try container.decode(MediaSession.self, forKey: .media))
        case "ended":
            self = .ended(
                callID: try callID(), reason: try container.decode(String.self, forKey: .reason),
                serverReason: try container.decodeIfPresent(String.self, forKey: .serverReason))
        case "readinessChanged":
            self = .readinessChanged(problems: try container.decode([String].self, forKey: .problems))
        case "connectionChanged":
            self = .connectionChanged(status: try container.decode(String.self, forKey: .status))
        case "requestFailed":
            self = .requestFailed(callID: try callID(), detail: try container.decode(String.self, forKey: .detail))
        case "eventsDropped":
            self = .eventsDropped(count: try container.decode(Int.self, forKey: .count))
        case "participants":
            self = .participants(
                callID: try callID(),
                participants: try container.decode([BridgeParticipant].self, forKey: .participants))
        case "held":
            self = .held(callID: try callID(), held: try container.decode(Bool.self, forKey: .held))
        case "muted":
            self = .muted(callID: try callID(), muted: try container.decode(Bool.self, forKey: .muted))
        case "dtmf":
            self = .dtmf(callID: try callID(), digits: try container.decode(String.self, forKey: .digits))
        case "audioRouteChanged":
            self = .audioRouteChanged(
                current: try container.decode(BridgeAudioOutput?.self, forKey: .current),
                outputs: try container.decode([BridgeAudioOutput].self, forKey: .outputs))
        case "callBackRequested":
            self = .callBackRequested(
                userID: try container.decode(String.self, forKey: .userId),
                hasVideo: try container.decode(Bool.self, forKey: .hasVideo))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown type")
        }
    }

    /// Encodes the event with every key of its shape, `null` included.
    /// - Throws: `EncodingError` only if the encoder refuses a value.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .incoming(let callID, let caller, let hasVideo, let group, let waiting):
            try container.encode(callID, forKey: .callId)
            try container.encode(BridgeParty(caller), forKey: .caller)
            try container.encode(hasVideo, forKey: .hasVideo)
            try container.encode(group, forKey: .group)
            try container.encode(waiting, forKey: .waiting)
        case .outgoing(let callID, let callee, let hasVideo):
            try container.encode(callID, forKey: .callId)
            try container.encode(BridgeParty(callee), forKey: .callee)
            try container.encode(hasVideo, forKey: .hasVideo)
        case .ringing(let callID):
            try container.encode(callID, forKey: .callId)
        case .accepted(let callID, let direction, let media):
            try container.encode(callID, forKey: .callId)
            try container.encode(direction.rawValue, forKey: .direction)
            try container.encode(media, forKey: .media)
        case .ended(let callID, let reason, let serverReason):
            try container.encode(callID, forKey: .callId)
            try container.encode(reason, forKey: .reason)
            try container.encode(serverReason, forKey: .serverReason)
        case .readinessChanged(let problems):
            try container.encode(problems, forKey: .problems)
        case .connectionChanged(let status):
            try container.encode(status, forKey: .status)
        case .requestFailed(let callID, let detail):
            try container.encode(callID, forKey: .callId)
            try container.encode(detail, forKey: .detail)
        case .eventsDropped(let count):
            try container.encode(count, forKey: .count)
        case .participants(let callID, let participants):
            try container.encode(callID, forKey: .callId)
            try container.encode(participants, forKey: .participants)
        case .held(let callID, let held):
            try container.encode(callID, forKey: .callId)
            try container.encode(held, forKey: .held)
        case .muted(let callID, let muted):
            try container.encode(callID, forKey: .callId)
            try container.encode(muted, forKey: .muted)
        case .dtmf(let callID, let digits):
            try container.encode(callID, forKey: .callId)
            try container.encode(digits, forKey: .digits)
        case .audioRouteChanged(let current, let outputs):
            try container.encode(current, forKey: .current)
            try container.encode(outputs, forKey: .outputs)
        case .callBackRequested(let userID, let hasVideo):
            try container.encode(userID, forKey: .userId)
            try container.encode(hasVideo, forKey: .hasVideo)
        }
    }
}

/// A page of the server's call history as `getRecentCalls()` answers it: `{calls, nextBefore}`.
struct BridgeRecentCalls: Encodable, Sendable {
    let calls: [Call]
    let nextBefore: String?

    init(_ list: CallList) {
        calls = list.calls.map { Call(call: $0) }
        nextBefore = list.nextBefore
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(calls, forKey: .calls)
        try container.encode(nextBefore, forKey: .nextBefore)
    }

    private enum CodingKeys: String, CodingKey { case calls, nextBefore }

    /// One call: `{callId, state, caller, callee, hasVideo, createdAt, acceptedAt, endedAt, endedBy, endReason, waiting,
    /// participants}`, times in Unix milliseconds, every key present (`null` where absent).
    struct Call: Encodable, Sendable {
        let call: RingerWire.Call

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(call.callID, forKey: .callId)
            try container.encode(call.state.rawValue, forKey: .state)
            try container.encode(BridgeParty(call.caller), forKey: .caller)
            try container.encode(BridgeParty(call.callee), forKey: .callee)
            try container.encode(call.hasVideo, forKey: .hasVideo)
            try container.encode(call.createdAt.unixMilliseconds, forKey: .createdAt)
            try container.encode(call.acceptedAt?.unixMilliseconds, forKey: .acceptedAt)
            try container.encode(call.endedAt?.unixMilliseconds, forKey: .endedAt)
            try container.encode(call.endedBy, forKey: .endedBy)
            try container.encode(call.endReason?.rawValue, forKey: .endReason)
            try container.encode(call.waiting == true, forKey: .waiting)
            try container.encode(call.legs?.map(BridgeParticipant.init), forKey: .participants)
        }

        private enum CodingKeys: String, CodingKey {
            case callId, state, caller, callee, hasVideo, createdAt, acceptedAt, endedAt, endedBy, endReason, waiting,
                participants
        }
    }
}

/// One place the calls' audio can go, as JavaScript sees it: `{id, route, name}`, `route` one of `earpiece`, `speaker`,
/// `wired`, `bluetooth`, `car`, `other` (RingerKit's `AudioOutput`).
struct BridgeAudioOutput: Codable, Hashable, Sendable {
    let id: String
    let route: String
    let name: String

    init(_ output: AudioOutput) {
        id = output.id
        route = output.route.rawValue
        name = output.name
    }

    /// The audio route state as `getAudioRoutes()` answers it: `{current, outputs}`.
    struct Routes: Codable, Hashable, Sendable {
        let current: BridgeAudioOutput?
        let outputs: [BridgeAudioOutput]

        init(_ routes: AudioRoutes) {
            current = routes.current.map(BridgeAudioOutput.init)
            outputs = routes.outputs.map(BridgeAudioOutput.init)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(current, forKey: .current)
            try container.encode(outputs, forKey: .outputs)
        }
    }
}

/// One person of a group call as JavaScript sees them: `{user: {id, name}, state}`, `state` a leg state of the server's
/// (`ringing`, `accepted`, `declined`, `busy`, `failed`, `unanswered`, `cancelled`, `left`, or a newer one).
struct BridgeParticipant: Codable, Hashable, Sendable {
    let user: BridgeParty
    let state: String

    init(_ leg: CallLeg) {
        user = BridgeParty(leg.user)
        state = leg.state.rawValue
    }
}

/// A group call as its ringing push told this phone: `{count, others}`, `count` every callee rung (this user
/// included), `others` some of them by name, at most 8 (RingerWire's `VoIPPush.Group`).
struct BridgeGroup: Codable, Hashable, Sendable {
    let count: Int
    let others: [BridgeParty]

    init(_ group: VoIPPush.Group) {
        count = group.count
        others = group.others.map(BridgeParty.init)
    }
}

/// A user as JavaScript sees one, `{id, name}` with `name` null rather than missing (RingerWire's `Party` leaves
/// a nil name out).
struct BridgeParty: Codable, Hashable, Sendable {
    let party: Party

    init(_ party: Party) { self.party = party }

    private enum CodingKeys: String, CodingKey { case id, name }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        party = Party(
            id: try container.decode(String.self, forKey: .id),
            name: try container.decodeIfPresent(String.self, forKey: .name))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(party.id, forKey: .id)
        try container.encode(party.name, forKey: .name)
    }
}

/// Values on their way to React Native: encoded with their own (camelCase) keys, then read back as the Foundation
/// objects (`NSDictionary`, `NSArray`, `NSNumber`, `NSString`, `NSNull`) the bridge converts to JavaScript.
enum BridgeJSON {
    /// The Foundation form of a value; `NSNull` for a value that does not encode.
    /// - Parameter value: the value.
    /// - Returns: a dictionary, an array or a scalar.
    static func foundationObject(_ value: some Encodable) -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value),
            let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return NSNull() }
        return object
    }
}
