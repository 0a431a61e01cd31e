import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerSync
import RingerWire

/// Collects what happens during one race exploration run, stamped with the scenario clock: what each
/// phone reports, power switches, hang-ups, the VoIP pushes APNs accepted, and a trace for people.
/// Thread-safe: phones and the server report from any thread.
final class RaceRecorder: Sendable {
    private struct Line {
        var at: Date
        var actor: String
        var text: String
    }

    private struct State {
        var origin: Date?
        var observed: [String: [RaceRecord.Observed]] = [:]
        var power: [String: [RaceRecord.Power]] = [:]
        var hangUps: [String: [Date]] = [:]
        var voipPushes: [String: [RaceRecord.Push]] = [:]
        var lines: [Line] = []
    }

    private let clock: ScenarioClock
    private let state = LockedValue(State())

    init(clock: ScenarioClock) { self.clock = clock }

    /// Sets time zero: the moment the call is placed.
    func start(at origin: Date) { state.withLock { $0.origin = origin } }

    /// The time zero, once set.
    var origin: Date? { state.withLock { $0.origin } }

    /// Adds a line to the trace.
    func note(_ actor: String, _ text: String) {
        let now = clock.now()
        state.withLock { $0.lines.append(Line(at: now, actor: actor, text: text)) }
    }

    /// The observer to give a phone.
    func observer(for deviceID: String) -> @Sendable (SimulatedIPhone.Observation) -> Void {
        { [weak self] observation in self?.record(observation, on: deviceID) }
    }

    private func record(_ observation: SimulatedIPhone.Observation, on deviceID: String) {
        let now = clock.now()
        state.withLock { state in
            state.observed[deviceID, default: []].append(RaceRecord.Observed(at: now, observation))
            if let text = Self.describe(observation) { state.lines.append(Line(at: now, actor: deviceID, text: text)) }
        }
    }

    /// A phone was switched on or off.
    func power(_ deviceID: String, on: Bool) {
        let now = clock.now()
        state.withLock { state in
            state.power[deviceID, default: []].append(RaceRecord.Power(at: now, on: on))
            state.lines.append(Line(at: now, actor: deviceID, text: on ? "phone switched on" : "phone switched off"))
        }
    }

    /// A user ended the call without the native UI (the caller's cancel or hang-up).
    func hungUp(_ deviceID: String) {
        let now = clock.now()
        state.withLock { $0.hangUps[deviceID, default: []].append(now) }
    }

    /// True once the caller's app ended the call: a remote end it reported, or its user's hang-up.
    func callerClosed(_ callID: String, device: String) -> Bool {
        state.withLock { state in
            !(state.hangUps[device] ?? []).isEmpty || (state.observed[device] ?? []).contains { entry in
                if case .callKitEnded(let id, _) = entry.observation { return id == callID }
                return false
            }
        }
    }

    /// What the server did.
    func server(_ observation: ServerObservation) {
        let now = clock.now()
        state.withLock { state in
            let text: String
            switch observation {
            case .callCreated(let call):
                text = "call created: \(call.state.rawValue)"
            case .callEvent(let type, let call):
                text = "\(type.rawValue) -> \(call.state.rawValue)"
            case .pushSent(let outcome):
                if outcome.pushType == "voip", outcome.status == 200 {
                    state.voipPushes[outcome.deviceID, default: []].append(RaceRecord.Push(apnsID: outcome.apnsID, sentAt: now))
                }
                text = "\(outcome.pushType) push \(outcome.apnsID.prefix(8)) to \(outcome.deviceID): "
                    + "APNs \(outcome.status.map(String.init) ?? "no answer")\(outcome.reason.map { " \($0)" } ?? "")"
            case .ringTimeoutFired:
                text = "ring timeout fired"
            }
            state.lines.append(Line(at: now, actor: "server", text: text))
        }
    }

    /// One phone's record, with its CallKit history and what it still has to send.
    func device(_ id: String, isCaller: Bool, phone: SimulatedIPhone) -> RaceRecord.Device {
        let (observed, power, hangUps, pushes) = state.withLock {
            ($0.observed[id] ?? [], $0.power[id] ?? [], $0.hangUps[id] ?? [], $0.voipPushes[id] ?? [])
        }
        return RaceRecord.Device(id: id, isCaller: isCaller, callKit: phone.callKit.history, observed: observed,
                                 power: power, voipPushes: pushes, hangUps: hangUps,
                                 unacknowledgedHangUps: phone.unacknowledgedHangUps.count)
    }

    /// The trace in time order, CallKit changes included, call ids shown as `<call>`.
    func trace(callID: String?, callKits: [(String, [SimulatedCallKit.Moment])]) -> [String] {
        let (origin, recorded) = state.withLock { ($0.origin, $0.lines) }
        var lines = recorded
        for (device, history) in callKits {
            for moment in history { lines.append(Line(at: moment.at, actor: device, text: "CallKit " + Self.describe(moment.change))) }
        }
        let ordered = lines.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        return ordered.map { line in
            let time = origin.map { String(format: "%8.2f s", line.at.timeIntervalSince($0)) } ?? "   setup  "
            var text = time + "  " + line.actor.padding(toLength: 12, withPad: " ", startingAt: 0) + " " + line.text
            if let callID {
                text = text.replacingOccurrences(of: callID, with: "<call>")
                    .replacingOccurrences(of: callID.uppercased(), with: "<call>")
            }
            return text
        }
    }

    private static func describe(_ change: SimulatedCallKit.Change) -> String {
        func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }
        switch change {
        case .reported(let uuid, let accepted): return "reported \(id(uuid))" + (accepted ? ": rings" : ": refused (known UUID)")
        case .ended(let uuid, let reason): return "ended \(id(uuid)): \(reason.rawValue)"
        case .outgoingConnected(let uuid): return "outgoing \(id(uuid)) connected"
        case .userAnswered(let uuid): return "user answers \(id(uuid))"
        case .answerCompleted(let uuid, let fulfilled): return "answer \(id(uuid)) " + (fulfilled ? "fulfilled" : "FAILED: call ended")
        case .userEnded(let uuid): return "user ends \(id(uuid))"
        case .endedBySystem(let uuid): return "ended \(id(uuid)) with the app's process"
        }
    }

    private static func describe(_ observation: SimulatedIPhone.Observation) -> String? {
        switch observation {
        case .woken(let apnsID): "woken by VoIP push \(apnsID.prefix(8))"
        case .pushReceived(let apnsID, let disposition): "PushKit got \(apnsID.prefix(8)): \(disposition.rawValue)"
        case .callKitEnded(let callID, let reason): "app ends \(callID): \(reason.rawValue)"
        case .userEnded(let callID): "user hangs up \(callID)"
        case .mediaReady(let callID, _): "media session for \(callID)"
        case .event(let event): "event #\(event.seq) \(event.type.rawValue) (\(event.call.state.rawValue))"
        case .killedBySystem(let reason): "APP KILLED by iOS: \(reason)"
        case .noticeReceived(let type, let apnsID): "notice \(type.rawValue) (push \(apnsID.prefix(8)))"
        case .notificationShown(let title, _): "alert shown: \(title)"
        case .audioRefused(let callID): "AUDIO REFUSED for \(callID)"
        // The CallKit history already shows these.
        case .callKitReported, .userAnswered, .audioStarted: nil
        }
    }
}
