import Foundation
import RingerSandbox
import RingerWire

/// One native call on one phone, rebuilt from its CallKit history or its Android events, for ``RaceInvariants``.
struct RaceNativeCall {
    /// How a native call ended.
    enum Ending: Equatable, CustomStringConvertible {
        /// The app reported the end (`reportCall(with:endedAt:reason:)`) with this reason.
        case remote(CallEndReason)
        /// The user tapped Decline or End.
        case local
        /// The app failed the user's answer action: the call ended with no reason.
        case answerFailed
        /// The app's process ended (killed, swiped away, phone off).
        case system

        var description: String {
            switch self {
            case .remote(let reason): "ended \(reason.rawValue)"
            case .local: "ended by its user"
            case .answerFailed: "ended by a failed answer action"
            case .system: "ended with the app's process"
            }
        }
    }

    /// The CallKit UUID.
    var id: UUID
    /// True for a connected outgoing call (the caller's side).
    var outgoing: Bool
    /// When it was reported (accepted by CallKit).
    var reportedAt: Date
    /// When the user tapped Answer.
    var answeredAt: Date?
    /// When the app fulfilled the answer.
    var fulfilledAt: Date?
    /// When and how it ended.
    var ending: (at: Date, how: Ending)?

    /// When it stopped ringing: answered or ended, whichever came first; nil while it rings.
    /// Outgoing calls never ring.
    var ringEnd: Date? {
        if outgoing { return reportedAt }
        return [answeredAt, ending?.at].compactMap { $0 }.min()
    }

    /// Up (ringing, answering or active) at `date`.
    func isUp(at date: Date) -> Bool { reportedAt <= date && (ending.map { $0.at > date } ?? true) }

    /// Reported and ended within `window` seconds with no answer: a push the app could not ring
    /// (expired, already over) that Apple's rule still makes it report. The user never sees it ring.
    func isFlash(within window: TimeInterval) -> Bool {
        guard !outgoing, answeredAt == nil, let ending else { return false }
        return ending.at.timeIntervalSince(reportedAt) <= window
    }

    /// The native calls in a CallKit history, in the order they were reported.
    /// - Returns: the calls, and the times of reports CallKit refused (a known UUID).
    static func calls(in history: [SimulatedCallKit.Moment]) -> (calls: [RaceNativeCall], refused: [(Date, UUID)]) {
        var list = Reading()
        for moment in history {
            switch moment.change {
            case .reported(let id, let accepted):
                if accepted {
                    list.report(id, outgoing: false, at: moment.at)
                } else {
                    list.refused.append((moment.at, id))
                }
            case .outgoingConnected(let id):
                list.report(id, outgoing: true, at: moment.at)
            case .userAnswered(let id), .appAnswered(let id):
                list.update(id) { $0.answeredAt = $0.answeredAt ?? moment.at }
            case .answerCompleted(let id, let fulfilled):
                if fulfilled {
                    list.update(id) { $0.fulfilledAt = moment.at }
                } else {
                    list.end(id, at: moment.at, .answerFailed)
                }
            case .ended(let id, let reason): list.end(id, at: moment.at, .remote(reason))
            case .userEnded(let id): list.end(id, at: moment.at, .local)
            case .endedBySystem(let id): list.end(id, at: moment.at, .system)
            case .held, .muted, .dtmf, .cellularArrived, .cellularAnswered, .cellularHeld, .cellularEnded:
                break  // none rings or ends one of the app's calls
            }
        }
        return (list.calls, list.refused)
    }

    /// The native calls of an Android phone in the phone host, read from its events as a CallKit history is:
    /// `ringing` is a report, `user_answered` the user's answer, `call_active` the fulfilled answer,
    /// `user_declined`/`user_hung_up` the user's ending, a `call_ended` whose `DisconnectCause` an end reason makes a
    /// remote ending, `ended_by_system` the system's. The SDK closes an answer the server did not confirm with a bare
    /// `ERROR` (`TelecomCallUi.answer`), as it closes a `failed` call: after an answer that never went active such an
    /// ending is read as the failed answer, before it as the end reason `failed`; both are violations.
    /// - Parameter events: the phone's events, in the order the host wrote them.
    /// - Returns: the calls in the order they rang.
    static func calls(inAndroidEvents events: [RaceRecord.AndroidObserved]) -> [RaceNativeCall] {
        var list = Reading()
        for entry in events {
            guard let callID = entry.event.callID, let id = UUID(uuidString: callID) else { continue }
            switch entry.event.event {
            case "ringing":
                list.report(id, outgoing: false, at: entry.at)
            case "user_answered":
                list.update(id) { $0.answeredAt = $0.answeredAt ?? entry.at }
            case "call_active":
                list.update(id) { $0.fulfilledAt = $0.fulfilledAt ?? entry.at }
            case "user_declined", "user_hung_up":
                list.end(id, at: entry.at, .local)
            case "ended_by_system":
                list.end(id, at: entry.at, .system)
            case "call_ended":
                let answered = list.call(id).map { $0.answeredAt != nil && $0.fulfilledAt == nil } ?? false
                switch (entry.event.cause, entry.event.reason) {
                case ("LOCAL", _), ("REJECTED", nil):
                    // The user's own ending: `user_hung_up`/`user_declined` came first and won.
                    list.end(id, at: entry.at, .local)
                case ("ERROR", nil) where answered:
                    list.end(id, at: entry.at, .answerFailed)
                case (let code?, let reason):
                    let cause = DisconnectCause.Code(rawValue: code).map { DisconnectCause($0, reason: reason) }
                    if let remote = cause?.remoteEndReason {
                        list.end(id, at: entry.at, .remote(remote))
                    } else {
                        list.end(id, at: entry.at, .local)
                    }
                case (nil, _):
                    list.end(id, at: entry.at, .local)
                }
            default:
                continue
            }
        }
        return list.calls
    }

    /// The calls read from one history so far, by id; shared by the CallKit and Android readings.
    private struct Reading {
        var calls: [RaceNativeCall] = []
        var refused: [(Date, UUID)] = []
        private var index: [UUID: Int] = [:]

        /// Starts a call at `date`; an outgoing call counts once, however often it connects.
        mutating func report(_ id: UUID, outgoing: Bool, at date: Date) {
            if outgoing, index[id] != nil { return }
            index[id] = calls.count
            calls.append(RaceNativeCall(id: id, outgoing: outgoing, reportedAt: date))
        }

        /// The call of that id read so far.
        func call(_ id: UUID) -> RaceNativeCall? { index[id].map { calls[$0] } }

        mutating func update(_ id: UUID, _ change: (inout RaceNativeCall) -> Void) {
            guard let position = index[id] else { return }
            change(&calls[position])
        }

        /// The first ending wins.
        mutating func end(_ id: UUID, at date: Date, _ how: Ending) {
            update(id) { call in if call.ending == nil { call.ending = (date, how) } }
        }
    }

    /// The native calls of a device of either platform.
    static func calls(of device: RaceRecord.Device) -> [RaceNativeCall] {
        device.platform == .android ? calls(inAndroidEvents: device.androidObserved) : calls(in: device.callKit).calls
    }
}
