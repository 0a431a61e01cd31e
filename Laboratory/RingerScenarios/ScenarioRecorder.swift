import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerSupport
import RingerWire

/// Everything a scenario run observed, from the phones and the server, with scenario times for the
/// trace. Thread-safe: observers call it from any thread.
final class ScenarioRecorder: Sendable {
    /// What one phone did and saw.
    struct DeviceRecord: Sendable {
        /// WebSocket events in arrival order: type and call id.
        var events: [(type: EventType, callID: String)] = []
        /// Call ids CallKit showed as ringing incoming calls.
        var rang: [String] = []
        /// The first native end reason per call id.
        var ended: [String: CallEndReason] = [:]
        /// Call ids the user answered.
        var answered: Set<String> = []
        /// Call ids the app got a media session for.
        var media: Set<String> = []
        /// Call ids the app heard held at some time.
        var wasHeld: Set<String> = []
        /// Whether each call id was held as the app last heard it.
        var held: [String: Bool] = [:]
        /// Whether each call id was muted as the app last heard it.
        var muted: [String: Bool] = [:]
        /// The keypad tones the app's media was told to play, per call id, in order.
        var tones: [String: String] = [:]
        /// `apns-id`s of VoIP pushes that launched the killed app.
        var wokenBy: [String] = []
        /// `apns-id` and outcome (snake case) of each VoIP push PushKit handed to the app.
        var pushes: [(apnsID: String, disposition: String)] = []
        /// Times iOS killed the app for an unreported VoIP push.
        var kills = 0
        /// Whether the server accepted the device's registration (nil until tried).
        var registered: Bool?
        /// Titles of the notifications the phone showed, in order.
        var notifications: [String] = []
        /// Android: how each call id's incoming call showed (snake case: `in_app`, `full_screen`, `heads_up`).
        var shown: [String: String] = [:]
        /// Android: the first `DisconnectCause` per call id.
        var causes: [String: DisconnectCause] = [:]
        /// Android: FCM messages `onMessageReceived` handled: name, and for a ringing message its call id and
        /// what became of it (snake case).
        var messages: [(name: String, callID: String?, disposition: String?)] = []
        /// Android: names of the FCM messages that started the app's process.
        var startedBy: [String] = []
        /// When each call id's native call stopped ringing (answered or ended), on the scenario clock.
        var ringStopped: [String: Date] = [:]

        mutating func stoppedRinging(_ callID: String, at date: Date) {
            if ringStopped[callID] == nil { ringStopped[callID] = date }
        }
    }

    private struct State {
        var origin: Date?
        var devices: [String: DeviceRecord] = [:]
        var trace: [(seconds: Double?, line: String)] = []
        /// Problems found during the run (a failed step, a mid-run check).
        var failures: [String] = []
        /// Call id → label, once the step that placed it returned.
        var labels: [String: String] = [:]
    }

    private let clock: ScenarioClock
    private let state = LockedValue(State())
    private let onTrace: @Sendable (String) -> Void

    /// - Parameters:
    ///   - clock: scenario time, for the trace.
    ///   - onTrace: each trace line as it happens (call ids not yet replaced by labels).
    init(clock: ScenarioClock, onTrace: @escaping @Sendable (String) -> Void) {
        self.clock = clock
        self.onTrace = onTrace
    }

    /// Sets time zero of the trace.
    func start(at origin: Date) { state.withLock { $0.origin = origin } }

    /// Adds a line to the trace, stamped with the scenario time.
    func note(_ actor: String, _ text: String) {
        let line = state.withLock { state -> String in
            let seconds = state.origin.map { clock.now().timeIntervalSince($0) }
            state.trace.append((seconds, actor.padding(toLength: 14, withPad: " ", startingAt: 0) + " " + text))
            return Self.render(seconds, state.trace.last!.line)
        }
        onTrace(line)
    }

    /// Records a problem found while running (it fails the scenario) and traces it.
    func fail(_ problem: String) {
        state.withLock { $0.failures.append(problem) }
        note("runner", "FAILED: " + problem)
    }

    /// Names a call id with its label.
    func label(_ callID: String, as label: String) { state.withLock { $0.labels[callID] = label } }

    /// Records whether a device's registration was accepted.
    func registered(_ deviceID: String, _ accepted: Bool) {
        state.withLock { $0.devices[deviceID, default: DeviceRecord()].registered = accepted }
    }

    /// Records a user's answer given by a time-line step (behaviour answers arrive as observations).
    func answered(_ deviceID: String, callID: String) {
        let now = clock.now()
        state.withLock {
            $0.devices[deviceID, default: DeviceRecord()].answered.insert(callID)
            $0.devices[deviceID, default: DeviceRecord()].stoppedRinging(callID, at: now)
        }
    }

    /// The observer to give a phone.
    func observer(for deviceID: String) -> @Sendable (SimulatedIPhone.Observation) -> Void {
        { [weak self] observation in self?.record(observation, on: deviceID) }
    }

    private func record(_ observation: SimulatedIPhone.Observation, on deviceID: String) {
        let now = clock.now()
        let text: String = state.withLock { state in
            var record = state.devices[deviceID, default: DeviceRecord()]
            defer { state.devices[deviceID] = record }
            switch observation {
            case .woken(let apnsID):
                record.wokenBy.append(apnsID)
                return "woken by VoIP push \(apnsID)"
            case .pushReceived(let apnsID, let disposition):
                record.pushes.append((apnsID, ScenarioParser.snakeCase(disposition.rawValue)))
                return "PushKit got \(apnsID): \(ScenarioParser.snakeCase(disposition.rawValue))"
            case .callKitReported(let callID):
                record.rang.append(callID)
                return "CallKit rings \(callID)"
            case .callKitEnded(let callID, let reason):
                record.stoppedRinging(callID, at: now)
                if record.ended[callID] == nil { record.ended[callID] = reason }
                return "CallKit ended \(callID): \(reason.rawValue)"
            case .userAnswered(let callID):
                record.stoppedRinging(callID, at: now)
                record.answered.insert(callID)
                return "user answers \(callID)"
            case .userEnded(let callID):
                record.stoppedRinging(callID, at: now)
                return "user ends \(callID)"
            case .mediaReady(let callID, _):
                record.media.insert(callID)
                return "media session for \(callID)"
            case .event(let event):
                record.events.append((event.type, event.call.callID))
                return "event #\(event.seq) \(event.type.rawValue) \(event.call.callID) (\(event.call.state.rawValue))"
            case .killedBySystem(let reason):
                record.kills += 1
                return "APP KILLED by iOS: \(reason)"
            case .notificationShown(let title, let body):
                record.notifications.append(title)
                return "notification shown: \(title): \(body)"
            case .held(let callID, let held):
                if held { record.wasHeld.insert(callID) }
                record.held[callID] = held
                return "app hears \(callID) \(held ? "held" : "resumed")"
            case .muted(let callID, let muted):
                record.muted[callID] = muted
                return "app hears \(callID) \(muted ? "muted" : "unmuted")"
            case .tones(let callID, let digits):
                record.tones[callID, default: ""] += digits
                return "app plays tones \(digits) on \(callID)"
            case .cellular(let answer?):
                return "a cellular call arrives: the user answers \(answer.rawValue)"
            case .cellular(nil):
                return "the cellular call ends"
            default:
                return "\(observation)"
            }
        }
        note(deviceID, text)
    }

    /// The observer to give an Android phone in the phone host: its events (docs/android-phone-host.md, "Events"),
    /// read into the same record as an iPhone's observations.
    func androidObserver(for deviceID: String) -> @Sendable (AndroidHostEvent) -> Void {
        { [weak self] event in self?.record(event, on: deviceID) }
    }

    private func record(_ event: AndroidHostEvent, on deviceID: String) {
        let now = clock.now()
        let callID = event.callID ?? "?"
        let name = event.message.map { String($0.suffix(12)) } ?? "?"
        let text: String = state.withLock { state in
            var record = state.devices[deviceID, default: DeviceRecord()]
            defer { state.devices[deviceID] = record }
            switch event.event {
            case "started_by_message":
                record.startedBy.append(event.message ?? "")
                return "app started by FCM message \(name)"
            case "message_received":
                let priority = event.priority ?? "?"
                switch event.outcome {
                case "call":
                    record.messages.append((event.message ?? "", event.callID, event.disposition))
                    return "onMessageReceived \(name) (\(priority)): call \(callID) \(event.disposition ?? "?")"
                case "update":
                    record.messages.append((event.message ?? "", nil, nil))
                    return "onMessageReceived \(name) (\(priority)): \(event.type ?? "?") \(callID)"
                default:
                    record.messages.append((event.message ?? "", nil, nil))
                    return "onMessageReceived \(name) (\(priority)): ignored"
                }
            case "message_not_delivered":
                return "FCM message \(name) not delivered: \(event.reason ?? "?")"
            case "notification_shown":
                record.notifications.append(event.title ?? "")
                return "notification shown (\(event.postedBy ?? "?")): \(event.title ?? ""): \(event.body ?? "")"
            case "notification_blocked":
                return "notification NOT shown: \(event.title ?? "")"
            case "ringing":
                record.rang.append(callID)
                record.shown[callID] = record.shown[callID] ?? event.presentation
                return "ConnectionService rings \(callID) (\(event.presentation ?? "?"))"
            case "user_answered":
                record.stoppedRinging(callID, at: now)
                record.answered.insert(callID)
                return "user answers \(callID)"
            case "user_declined":
                record.stoppedRinging(callID, at: now)
                return "user declines \(callID)"
            case "user_hung_up":
                record.stoppedRinging(callID, at: now)
                return "user hangs up \(callID)"
            case "media_ready":
                record.media.insert(callID)
                return "media session for \(callID)"
            case "call_held":
                let held = event.held ?? false
                if held { record.wasHeld.insert(callID) }
                record.held[callID] = held
                return "app hears \(callID) \(held ? "held" : "resumed")"
            case "sim_call_answered":
                return "a SIM call arrives: the user answers \(event.answer ?? "?")"
            case "sim_call_ended":
                return "the SIM call ends"
            case "focus_lost":
                return "Telecom takes the ConnectionService's focus"
            case "focus_released":
                return "the ConnectionService released its focus"
            case "focus_timeout":
                return "FOCUS NOT RELEASED within 5 s: Telecom disconnects the app's calls"
            case "call_ended":
                record.stoppedRinging(callID, at: now)
                let cause = DisconnectCause(
                    DisconnectCause.Code(rawValue: event.cause ?? "") ?? .unknown, reason: event.reason)
                if record.causes[callID] == nil { record.causes[callID] = cause }
                if record.ended[callID] == nil, let reason = cause.remoteEndReason { record.ended[callID] = reason }
                return "connection \(callID) disconnected: \(cause)"
            case "ended_by_system":
                record.stoppedRinging(callID, at: now)
                if record.causes[callID] == nil {
                    record.causes[callID] = DisconnectCause(.error, reason: "the app's process died")
                }
                return "connection \(callID) ended with the app's process"
            case "event":
                if let type = event.type.map(EventType.init(rawValue:)) { record.events.append((type, callID)) }
                return "event #\(event.seq ?? 0) \(event.type ?? "?") \(callID) (\(event.state ?? "?"))"
            case "process_ended":
                return "app process ended (\(event.appState ?? "?"))"
            case "stream_status":
                return "event stream \(event.status ?? "?")"
            case "audio_started":
                return "audio started for \(callID) (microphone: \(event.microphone ?? false))"
            case "foreground_service_started":
                return "foreground service started for \(callID) (microphone: \(event.microphone ?? false))"
            case "foreground_service_refused":
                return "foreground service refused for \(callID): \(event.error ?? "?")"
            case "call_active":
                return "connection \(callID) active"
            case "request_failed":
                return "request for \(callID) failed: \(event.detail ?? "?")"
            default:
                return "\(event.event) \(callID)"
            }
        }
        note(deviceID, text)
    }

    /// Traces what the server did.
    func server(_ observation: ServerObservation) {
        switch observation {
        case .callCreated(let call):
            note(
                "server",
                "call \(call.callID) created: \(call.state.rawValue)\(call.failureReason.map { " (\($0))" } ?? "")")
        case .callEvent(let type, let call):
            note("server", "\(type.rawValue) \(call.callID) -> \(call.state.rawValue)")
        case .pushSent(let outcome):
            let provider = outcome.provider == .fcm ? "FCM" : "APNs"
            let id = outcome.provider == .fcm ? "message" : outcome.apnsID ?? ""
            note(
                "server",
                "\(outcome.pushType) push \(id) to \(outcome.deviceID) for \(outcome.callID): "
                    + "\(provider) \(outcome.status.map(String.init) ?? "no answer")\(outcome.reason.map { " \($0)" } ?? "")"
            )
        default:
            // The ring timeout, and whatever the server learns to report later.
            note("server", "\(observation)")
        }
    }

    /// What each device did, so far.
    var devices: [String: DeviceRecord] { state.withLock { $0.devices } }

    /// Problems found during the run.
    var failures: [String] { state.withLock { $0.failures } }

    /// The trace, with call ids replaced by their labels.
    var trace: [String] {
        state.withLock { state in
            state.trace.map { entry in
                var line = Self.render(entry.seconds, entry.line)
                for (callID, label) in state.labels { line = line.replacingOccurrences(of: callID, with: "<\(label)>") }
                return line
            }
        }
    }

    private static func render(_ seconds: Double?, _ line: String) -> String {
        let time = seconds.map { String(format: "%8.2f s", $0) } ?? "   setup  "
        return time + "  " + line
    }
}
