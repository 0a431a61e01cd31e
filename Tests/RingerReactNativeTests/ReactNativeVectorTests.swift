import Foundation
import RingerKit
@testable import RingerReactNativeMirrored
import RingerWire
import Testing

/// Runs the React Native package's shared vectors (TestVectors/react-native/events.json and relay.json, which the
/// Kotlin half runs too) against ``EventTranslator`` and ``EventRelay``, and checks that every event encodes to
/// exactly the vector's JSON (every key present, `null` where absent).
@Suite struct ReactNativeVectorTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("TestVectors/react-native")

    static func load<Vectors: Decodable>(_ name: String, as type: Vectors.Type) throws -> Vectors {
        try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: folder.appendingPathComponent(name)))
    }

    static let eventCases = (try? load("events.json", as: EventVectors.self).cases) ?? []
    static let relayCases = (try? load("relay.json", as: RelayVectors.self).cases) ?? []

    @Test func thereAreVectors() {
        #expect(Self.eventCases.count >= 6)
        #expect(Self.relayCases.count >= 3)
    }

    @Test(arguments: eventCases)
    func translationHolds(_ vector: EventCase) {
        var translator = EventTranslator()
        for (index, step) in vector.steps.enumerated() {
            let calls = step.calls.mapValues { call in
                CallSummary(
                    direction: call.direction, peer: call.peer, hasVideo: call.hasVideo, group: call.group,
                    waiting: call.waiting)
            }
            #expect(translator.translate(step.observation.input, calls: calls) == step.events, "step \(index)")
        }
    }

    @Test(arguments: relayCases)
    func relayHolds(_ vector: RelayCase) {
        var relay = EventRelay(capacity: vector.capacity)
        for (index, step) in vector.steps.enumerated() {
            switch step.input {
            case .event(let event): #expect(relay.send(event) == step.emitted, "step \(index)")
            case .attach: #expect(relay.attach() == step.replayed, "step \(index)")
            case .detach: relay.detach()
            }
        }
    }

    /// Every event of both files, as JavaScript receives it: the same JSON to the key.
    @Test func eventsEncodeToTheVectorsJSON() throws {
        var checked = 0
        for name in ["events.json", "relay.json"] {
            let root = try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.folder.appendingPathComponent(name)))
            for raw in Self.events(in: root) {
                let event = try JSONDecoder().decode(
                    BridgeEvent.self, from: JSONSerialization.data(withJSONObject: raw))
                #expect(try Self.canonical(event.foundationObject) == Self.canonical(raw), "\(raw)")
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    /// Every object under an `events`, `emitted`, `replayed` or `event` key whose `type` is an event's.
    static func events(in value: Any) -> [[String: Any]] {
        switch value {
        case let object as [String: Any]:
            return object.flatMap { key, child -> [[String: Any]] in
                if key == "event", let event = child as? [String: Any], !(event["type"] as? String ?? "").contains(".")
                {
                    return [event]
                }
                if ["events", "emitted", "replayed"].contains(key), let list = child as? [[String: Any]] {
                    return list
                }
                return events(in: child)
            }
        case let array as [Any]:
            return array.flatMap(events(in:))
        default:
            return []
        }
    }

    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }
}

// MARK: The vectors' shapes

/// A value a vector names, or an error saying the vector names something this side does not know.
func known<Value>(_ value: Value?, _ name: String = #function) throws -> Value {
    guard let value else { throw ReactNativeVectorError(description: "an unknown name in \(name)") }
    return value
}

struct ReactNativeVectorError: Error, CustomStringConvertible {
    let description: String
}

struct EventVectors: Decodable {
    let cases: [EventCase]
}

struct EventCase: Decodable, Sendable, CustomTestStringConvertible {
    let description: String
    let steps: [EventStep]
    var testDescription: String { description }
}

struct EventStep: Decodable, Sendable {
    let observation: VectorInput
    let calls: [String: VectorCall]
    let events: [BridgeEvent]
}

struct VectorCall: Decodable, Sendable {
    let direction: PhoneCallMachine.Direction
    let peer: Party
    let hasVideo: Bool
    /// An incoming group call's `group` from its push.
    let group: VoIPPush.Group?
    /// A call that rang while this user was in another.
    let waiting: Bool

    private enum CodingKeys: String, CodingKey {
        case direction, peer, group, waiting
        case hasVideo = "has_video"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        direction = try known(
            PhoneCallMachine.Direction(rawValue: try container.decode(String.self, forKey: .direction)))
        peer = try container.decode(Party.self, forKey: .peer)
        hasVideo = try container.decode(Bool.self, forKey: .hasVideo)
        group = try container.decodeIfPresent(VoIPPush.Group.self, forKey: .group)
        waiting = try container.decodeIfPresent(Bool.self, forKey: .waiting) ?? false
    }
}

/// An observation of events.json as the translator's input.
struct VectorInput: Decodable, Sendable {
    let input: EventTranslator.Input

    private enum CodingKeys: String, CodingKey {
        case type, disposition, media, reason, event, detail, status, problems, legs, held, muted, digits, current,
            outputs
        case callID = "call_id"
        case userID = "user_id"
        case hasVideo = "has_video"
    }

    /// An audio output as the vectors write it: `{"id":…,"route":…,"name":…}`.
    private struct VectorOutput: Decodable {
        let id: String
        let route: String
        let name: String
    }

    /// A leg as the vectors write it: `{"user":{"id":…,"name":…},"state":…}`.
    private struct VectorLeg: Decodable {
        let user: BridgeParty
        let state: String
    }

    private struct ServerEvent: Decodable {
        let type: String
        let call: ServerCall
    }

    private struct ServerCall: Decodable {
        let callID: String
        let state: String
        let endReason: String?

        private enum CodingKeys: String, CodingKey {
            case state
            case callID = "call_id"
            case endReason = "end_reason"
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func callID() throws -> String { try container.decode(String.self, forKey: .callID) }
        func media() throws -> MediaSession { try container.decode(MediaSession.self, forKey: .media) }
        switch try container.decode(String.self, forKey: .type) {
        case "push_reported":
            let disposition = try container.decode(String.self, forKey: .disposition)
            input = .observation(
                .pushReported(
                    callID: try container.decodeIfPresent(String.self, forKey: .callID),
                    disposition: try known(Self.dispositions[disposition])))
        case "ringing": input = .observation(.ringing(callID: try callID()))
        case "answered": input = .observation(.answered(callID: try callID(), media: try media()))
        case "outgoing_answered": input = .observation(.outgoingAnswered(callID: try callID(), media: try media()))
        case "media_can_start": input = .observation(.mediaCanStart(callID: try callID(), media: try media()))
        case "ended":
            let reason = try container.decodeIfPresent(String.self, forKey: .reason)
            input = .observation(.ended(callID: try callID(), reason: reason.map(CallEndReason.init(rawValue:))))
        case "event":
            let event = try container.decode(ServerEvent.self, forKey: .event)
            let now = Date()
            let call = Call(
                callID: event.call.callID, state: CallState(rawValue: event.call.state), caller: Party(id: "caller"),
                callee: Party(id: "callee"), hasVideo: false, createdAt: now, expiresAt: now,
                endReason: event.call.endReason.map(SystemEndReason.init(rawValue:)))
            input = .observation(.event(CallEvent(seq: 1, type: EventType(rawValue: event.type), call: call)))
        case "participants_changed":
            let legs = try container.decode([VectorLeg].self, forKey: .legs)
            let now = Date()
            input = .observation(
                .participantsChanged(
                    callID: try callID(),
                    legs: legs.map {
                        CallLeg(user: $0.user.party, state: LegState(rawValue: $0.state), rungAt: now, expiresAt: now)
                    }))
        case "held_changed":
            input = .observation(
                .heldChanged(callID: try callID(), held: try container.decode(Bool.self, forKey: .held)))
        case "muted_changed":
            input = .observation(
                .mutedChanged(callID: try callID(), muted: try container.decode(Bool.self, forKey: .muted)))
        case "dtmf":
            input = .observation(
                .dtmf(callID: try callID(), digits: try container.decode(String.self, forKey: .digits)))
        case "audio_route_changed":
            let outputs = try container.decode([VectorOutput].self, forKey: .outputs).map {
                AudioOutput(id: $0.id, route: try known(AudioRoute(rawValue: $0.route)), name: $0.name)
            }
            let current = try container.decode(String?.self, forKey: .current)
            input = .observation(
                .audioRouteChanged(AudioRoutes(current: outputs.first { $0.id == current }, outputs: outputs)))
        case "request_failed":
            input = .observation(
                .requestFailed(callID: try callID(), detail: try container.decode(String.self, forKey: .detail)))
        case "stream_status":
            let status = try container.decode(String.self, forKey: .status)
            input = .streamStatus(try known(Self.statuses[status]))
        case "readiness":
            input = .readiness(try container.decode([String].self, forKey: .problems))
        case "call_started":
            input = .callStarted(callID: try callID())
        case "call_back_requested":
            let handle = try container.decode(String.self, forKey: .userID)
            input = .callBackRequested(
                try known(CallBackRequest(handle: handle, hasVideo: try container.decode(Bool.self, forKey: .hasVideo)))
            )
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: other)
        }
    }

    static let dispositions: [String: CallCoordinator.PushDisposition] = [
        "ringing": .ringing, "duplicate": .duplicate, "unreadable": .unreadable, "expired": .expired,
        "already_ended": .alreadyEnded, "logged_out": .loggedOut, "other_user": .otherUser,
    ]

    static let statuses: [String: EventStream.Status] = [
        "connected": .connected, "lost": .lost(retryIn: 1), "restored": .restored, "closed": .closed,
        "replaced": .replaced, "unauthorized": .unauthorized,
    ]
}

struct RelayVectors: Decodable {
    let cases: [RelayCase]
}

struct RelayCase: Decodable, Sendable, CustomTestStringConvertible {
    let description: String
    let capacity: Int
    let steps: [RelayStep]
    var testDescription: String { description }
}

struct RelayStep: Decodable, Sendable {
    enum Input: Sendable {
        case event(BridgeEvent)
        case attach
        case detach
    }

    let input: Input
    let emitted: [BridgeEvent]?
    let replayed: [BridgeEvent]?

    private enum CodingKeys: String, CodingKey { case input, emitted, replayed }
    private enum InputKeys: String, CodingKey { case type, event }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try container.nestedContainer(keyedBy: InputKeys.self, forKey: .input)
        switch try raw.decode(String.self, forKey: .type) {
        case "event": input = .event(try raw.decode(BridgeEvent.self, forKey: .event))
        case "attach": input = .attach
        case "detach": input = .detach
        case let other: throw DecodingError.dataCorruptedError(forKey: .type, in: raw, debugDescription: other)
        }
        emitted = try container.decodeIfPresent([BridgeEvent].self, forKey: .emitted)
        replayed = try container.decodeIfPresent([BridgeEvent].self, forKey: .replayed)
    }
}
