import Foundation
import RingerKit
import RingerSandbox
import RingerWire

extension RaceInvariants {
    /// Event types that tell a device the call is over for it.
    static let terminalEvents: Set<EventType> = [
        .callCancelled, .callDeclined, .callEnded, .callAnsweredElsewhere,
        .callDeclinedElsewhere, .callUnanswered,
    ]

    // MARK: (c)

    static func nothingRingsAfterEnd(_ record: RaceRecord) -> [RaceViolation] {
        guard let call = record.call else {
            return [RaceViolation(.nothingRingsAfterEnd, device: nil, "the server's call could not be read at the end")]
        }
        var found: [RaceViolation] = []
        if call.state.isLive {
            found.append(
                RaceViolation(
                    .nothingRingsAfterEnd, device: nil,
                    "the server's call is still \(call.state.rawValue) when the run ended"))
        }
        for (user, view) in record.views.sorted(by: { $0.key < $1.key }) where view.state.isLive && record.isGroup {
            found.append(
                RaceViolation(
                    .nothingRingsAfterEnd, device: nil,
                    "\(user)'s leg is still \(view.state.rawValue) when the run ended"))
        }
        for device in record.devices {
            // A callee's phone answers to their leg: its deadline (a callee rung in later has a later one) and end.
            let view = record.view(of: device) ?? call
            let deadline = view.expiresAt
            let lastRing = deadline.addingTimeInterval(record.deadlineGrace + record.prompt)
            let calls = RaceNativeCall.calls(of: device)
            for native in calls {
                let name = "native call reported at \(record.time(native.reportedAt))"
                guard native.ending != nil else {
                    let state =
                        native.outgoing || native.fulfilledAt != nil
                        ? "active"
                        : native.answeredAt != nil ? "answering" : "ringing"
                    found.append(
                        RaceViolation(
                            .nothingRingsAfterEnd, device: device.id,
                            "\(name) is still \(state) when the run ended (every phone on and "
                                + "every app open since \(record.time(record.settledAt)))"))
                    continue
                }
                guard !native.outgoing, !native.isFlash(within: record.immediate) else { continue }
                if native.reportedAt > deadline.addingTimeInterval(record.immediate) {
                    found.append(
                        RaceViolation(
                            .nothingRingsAfterEnd, device: device.id,
                            "\(name) started ringing after the ring deadline (\(record.time(deadline)))"))
                }
                if let ringEnd = native.ringEnd, ringEnd > lastRing {
                    found.append(
                        RaceViolation(
                            .nothingRingsAfterEnd, device: device.id,
                            "\(name) rang until \(record.time(ringEnd)), past the deadline "
                                + "(\(record.time(deadline))) + \(record.deadlineGrace) s grace"))
                }
                if let endedAt = view.endedAt, native.reportedAt > endedAt.addingTimeInterval(record.immediate),
                    let ringEnd = native.ringEnd, ringEnd > native.reportedAt.addingTimeInterval(record.prompt)
                {
                    let what = record.isGroup && !device.isCaller ? "\(view.callee.id)'s leg" : "the server's call"
                    found.append(
                        RaceViolation(
                            .nothingRingsAfterEnd, device: device.id,
                            "\(name), after \(what) ended \(view.state.rawValue) at "
                                + "\(record.time(endedAt)), rang until \(record.time(ringEnd))"))
                }
            }
            found += signalsHonoured(device, calls: calls, record)
        }
        return found
    }

    /// Every native call up when a terminal event or alert/background push reached the app ended at once.
    private static func signalsHonoured(
        _ device: RaceRecord.Device, calls: [RaceNativeCall],
        _ record: RaceRecord
    ) -> [RaceViolation] {
        var found: [RaceViolation] = []
        for (at, signal) in signals(device, record) {
            for native in calls where native.isUp(at: at) {
                let endedAt = native.ending?.at
                guard endedAt.map({ $0 > at.addingTimeInterval(record.immediate) }) ?? true else { continue }
                found.append(
                    RaceViolation(
                        .nothingRingsAfterEnd, device: device.id,
                        "the \(signal) reached the app at \(record.time(at)), but the native call "
                            + "reported at \(record.time(native.reportedAt)) stayed up until "
                            + (endedAt.map(record.time) ?? "the end")))
            }
        }
        return found
    }

    /// When a terminal event (WebSocket) or push (an alert or background push on iOS, an FCM data message on Android)
    /// for the call reached the running app, and which.
    private static func signals(_ device: RaceRecord.Device, _ record: RaceRecord) -> [(Date, String)] {
        var found: [(Date, String)] = []
        for entry in device.observed {
            switch entry.observation {
            case .event(let event) where event.call.callID == record.callID && terminalEvents.contains(event.type):
                found.append((entry.at, "event \(event.type.rawValue)"))
            case .alertOrBackgroundPushReceived(let type, _) where terminalEvents.contains(type):
                found.append((entry.at, "alert or background push \(type.rawValue)"))
            default:
                continue
            }
        }
        // An Android phone: a server event the coordinator handled, or an FCM data message it read as an update.
        for entry in device.androidObserved where entry.event.callID == record.callID {
            guard let type = entry.event.type.flatMap(EventType.init(rawValue:)), terminalEvents.contains(type)
            else { continue }
            if entry.event.event == "event" {
                found.append((entry.at, "event \(type.rawValue)"))
            } else if entry.event.event == "message_received", entry.event.outcome == "update" {
                found.append((entry.at, "FCM message \(type.rawValue)"))
            }
        }
        return found
    }
}
