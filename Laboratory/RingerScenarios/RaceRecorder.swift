import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerSupport
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
        var androidObserved: [String: [RaceRecord.AndroidObserved]] = [:]
        var power: [String: [RaceRecord.Power]] = [:]
        var hangUps: [String: [Date]] = [:]
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

    /// The observer to give an Android phone in the phone host: each event is kept at its `t_ms` (the host's
    /// reading of the run's scenario clock, so the pipe's delay does not move it), else at its arrival.
    func androidObserver(for deviceID: String) -> @Sendable (AndroidHostEvent) -> Void {
        { [weak self] event in self?.record(event, on: deviceID) }
    }

    private func record(_ event: AndroidHostEvent, on deviceID: String) {
        let at = event.tMs.map { Date(timeIntervalSince1970: $0 / 1000) } ?? clock.now()
        state.withLock { state in
            state.androidObserved[deviceID, default: []].append(RaceRecord.AndroidObserved(at: at, event))
            if let text = Self.describe(event) { state.lines.append(Line(at: at, actor: deviceID, text: text)) }
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
            !(state.hangUps[device] ?? []).isEmpty
                || (state.observed[device] ?? []).contains { entry in
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
                let provider = outcome.provider == .fcm ? "FCM" : "APNs"
                let id = outcome.provider == .fcm ? "message" : String((outcome.apnsID ?? "").prefix(8))
                text =
                    "\(outcome.pushType) push \(id) to \(outcome.deviceID): "
                    + "\(provider) \(outcome.status.map(String.init) ?? "no answer")\(outcome.reason.map { " \($0)" } ?? "")"
            case .ringTimeoutFired:
                text = "ring timeout fired"
            case .webhookAttempt, .callStored, .deadTokenRemoved:
                // Told otherwise (call events, push outcomes) or not part of a ringing race.
                return
            }
            state.lines.append(Line(at: now, actor: "server", text: text))
        }
    }

    /// One phone's record, with its native call history, what it still has to send, the VoIP pushes APNs accepted
    /// for it (from the sandbox, which every node of a cluster sends to) and (Android) the fate of each ringing FCM
    /// message FCM accepted for it.
    func device(
        _ id: String, isCaller: Bool, phone: SimulatedPhone, apns: APNsSandbox, fcm: FCMSandbox
    ) -> RaceRecord.Device {
        let (observed, events, power, hangUps) = state.withLock {
            ($0.observed[id] ?? [], $0.androidObserved[id] ?? [], $0.power[id] ?? [], $0.hangUps[id] ?? [])
        }
        switch phone {
        case .iPhone(let iPhone):
            let token = iPhone.identity.voipToken.lowercased()
            let pushes = apns.acceptedPushes.filter { $0.deviceToken == token && $0.pushType == "voip" }
                .map { RaceRecord.Push(apnsID: $0.apnsID, sentAt: $0.receivedAt) }
            return RaceRecord.Device(
                id: id, isCaller: isCaller, callKit: iPhone.callKit.history, observed: observed,
                power: power, voipPushes: pushes, hangUps: hangUps,
                unacknowledgedHangUps: iPhone.unacknowledgedHangUps.count)
        case .android(let android):
            // Its hang-ups wait in the SDK's store in the host's process: the server's final state and the
            // user's ending in its events judge them instead.
            var device = RaceRecord.Device(
                id: id, isCaller: isCaller, power: power, hangUps: hangUps, unacknowledgedHangUps: 0)
            device.platform = .android
            device.androidObserved = events
            device.fcmMessages = Self.ringingMessages(to: android.fcmToken, fcm: fcm)
            return device
        }
    }

    /// The ringing FCM messages FCM accepted for `token`, with their fates now.
    private static func ringingMessages(to token: String, fcm: FCMSandbox) -> [RaceRecord.FCMMessage] {
        fcm.acceptedMessages.filter { message in
            message.token == token && ScenarioVerdict.FCMView.about(message)?.type == "call.incoming"
        }.map {
            RaceRecord.FCMMessage(
                name: $0.name, acceptedAt: $0.acceptedAt, expiresAt: $0.expiresAt,
                fate: fcm.deliveryState(ofMessage: $0.name))
        }
    }

    /// The trace in time order, CallKit changes included, call ids shown as `<call>`.
    func trace(callID: String?, phones: [(id: String, phone: SimulatedPhone)]) -> [String] {
        let (origin, recorded) = state.withLock { ($0.origin, $0.lines) }
        var lines = recorded
        for (device, phone) in phones {
            switch phone {
            case .iPhone(let iPhone):
                for moment in iPhone.callKit.history {
                    lines.append(Line(at: moment.at, actor: device, text: "CallKit " + Self.describe(moment.change)))
                }
            case .android:
                // Its events are in the recorded lines already.
                break
            }
        }
        let ordered = lines.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(
            \.element)
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
        case .reported(let uuid, let accepted):
            return "reported \(id(uuid))" + (accepted ? ": rings" : ": refused (known UUID)")
        case .ended(let uuid, let reason): return "ended \(id(uuid)): \(reason.rawValue)"
        case .outgoingConnected(let uuid): return "outgoing \(id(uuid)) connected"
        case .userAnswered(let uuid): return "user answers \(id(uuid))"
        case .appAnswered(let uuid): return "app answers \(id(uuid)) (CXAnswerCallAction requested)"
        case .answerCompleted(let uuid, let fulfilled):
            return "answer \(id(uuid)) " + (fulfilled ? "fulfilled" : "FAILED: call ended")
        case .userEnded(let uuid): return "user ends \(id(uuid))"
        case .endedBySystem(let uuid): return "ended \(id(uuid)) with the app's process"
        case .held(let uuid, let held): return "\(held ? "held" : "resumed") \(id(uuid))"
        case .muted(let uuid, let muted): return "\(muted ? "muted" : "unmuted") \(id(uuid))"
        case .dtmf(let uuid, let digits): return "keypad \(digits) on \(id(uuid))"
        case .cellularArrived: return "a cellular call arrives"
        case .cellularAnswered(let answer): return "the user answers the cellular call: \(answer.rawValue)"
        case .cellularHeld: return "the cellular call is held"
        case .cellularEnded: return "the cellular call ends"
        }
    }

    /// An Android phone's event in the trace's words, its Telecom changes named as Telecom names them.
    private static func describe(_ event: AndroidHostEvent) -> String? {
        let call = event.callID ?? "?"
        let name = event.message.map { String($0.suffix(12)) } ?? "?"
        switch event.event {
        case "started_by_message": return "app started by FCM message \(name)"
        case "message_received":
            let what =
                switch event.outcome {
                case "call": "call.incoming \(call): \(event.disposition ?? "?")"
                case "update": "\(event.type ?? "?") \(call)"
                default: "ignored"
                }
            return "onMessageReceived \(name) (\(event.priority ?? "?")): \(what)"
        case "message_not_delivered": return "FCM message \(name) not delivered: \(event.reason ?? "?")"
        case "notification_shown": return "notification shown: \(event.title ?? "")"
        case "notification_blocked": return "notification blocked: \(event.title ?? "")"
        case "ringing": return "Telecom setRinging \(call) (\(event.presentation ?? "?"))"
        case "user_answered": return "Telecom onAnswer \(call)"
        case "user_declined": return "Telecom onReject \(call)"
        case "user_hung_up": return "Telecom onDisconnect \(call)"
        case "call_active": return "Telecom setActive \(call)"
        case "call_ended":
            return "Telecom setDisconnected \(call): \(event.cause ?? "?")\(event.reason.map { " (\($0))" } ?? "")"
        case "ended_by_system": return "Telecom disconnected \(call) with the app's process"
        case "media_ready": return "media session for \(call)"
        case "foreground_service_refused": return "FOREGROUND SERVICE REFUSED for \(call): \(event.error ?? "?")"
        case "event":
            return "event #\(event.seq.map(String.init) ?? "?") \(event.type ?? "?") (\(event.state ?? "?"))"
        case "stream_status": return "event stream \(event.status ?? "?")"
        case "request_failed": return "request for \(call) failed: \(event.detail ?? "?")"
        case "process_ended": return "app process ended (\(event.appState ?? "?"))"
        default: return nil
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
        case .alertOrBackgroundPushReceived(let type, let apnsID):
            "\(type.rawValue) (alert or background push \(apnsID.prefix(8)))"
        case .notificationShown(let title, _): "alert shown: \(title)"
        case .audioRefused(let callID): "AUDIO REFUSED for \(callID)"
        // The CallKit history already shows these.
        case .callKitReported, .userAnswered, .audioStarted, .held, .muted, .tones, .cellular: nil
        }
    }
}
