import Foundation
import RingerSandbox
import RingerWire

extension RaceInvariants {
    // MARK: (d)

    static func endReasonsAgree(_ record: RaceRecord) -> [RaceViolation] {
        guard let call = record.call, !call.state.isLive else { return [] }  // (c) reports it
        var found: [RaceViolation] = []
        let uuid = UUID(uuidString: record.callID)
        let callees = record.devices.filter { !$0.isCaller }
        var calls: [String: [RaceNativeCall]] = [:]
        for device in callees { calls[device.id] = RaceNativeCall.calls(of: device) }

        for device in callees {
            // Each callee's phone is judged by the call as its user reads it: in a group call, their leg.
            let view = record.view(of: device) ?? call
            let mine = calls[device.id] ?? []
            // A flash call under a new id follows a native call this device's user or its app's death ended: the
            // ending has no remote reason to repeat (a call up when its process died ends `failed` in the next one).
            let endedHere = mine.contains { $0.ending?.how == .local || $0.ending?.how == .system }
            for native in mine {
                guard let ending = native.ending else { continue }
                var allowed = calleeReasons(view, device: device.id)
                if ending.at >= view.expiresAt.addingTimeInterval(-record.immediate) { allowed.insert(.unanswered) }
                // An answer the server never took before the deadline ends the answered call answer_not_delivered
                // (the user did answer: not a missed call; scenario 39, RingerKit's PhoneCallMachine).
                if view.state == .unanswered, native.answeredAt != nil { allowed.insert(.answerNotDelivered) }
                let expected = allowed.map(\.rawValue).sorted().joined(separator: " or ")
                switch ending.how {
                case .local, .system:
                    continue
                case .answerFailed:
                    found.append(
                        RaceViolation(
                            .endReasonAgrees, device: device.id,
                            "the answer tapped at \(native.answeredAt.map(record.time) ?? "?") failed at "
                                + "\(record.time(ending.at)) and ended the native call with no reason; "
                                + "expected it to end \(expected) (\(describe(view, leg: record.isGroup)))"))
                case .remote(let reason):
                    if native.id != uuid && endedHere { continue }
                    guard !allowed.contains(reason) else { continue }
                    found.append(
                        RaceViolation(
                            .endReasonAgrees, device: device.id,
                            "native call reported at \(record.time(native.reportedAt)) ended "
                                + "\(reason.rawValue) at \(record.time(ending.at)), but \(describe(view, leg: record.isGroup)): "
                                + "expected \(expected)"))
                }
            }
            if let answer = mine.first(where: { $0.fulfilledAt != nil }), view.acceptedDeviceID != device.id {
                found.append(
                    RaceViolation(
                        .endReasonAgrees, device: device.id,
                        "its answer was confirmed at \(answer.fulfilledAt.map(record.time) ?? "?"), but "
                            + describe(view, leg: record.isGroup)))
            }
        }
        found += serverAgrees(call, calls: calls, record)
        for device in record.devices where device.unacknowledgedHangUps > 0 {
            found.append(
                RaceViolation(
                    .endReasonAgrees, device: device.id,
                    "\(device.unacknowledgedHangUps) hang-up(s) never acknowledged by the server"))
        }
        if let caller = record.devices.first(where: \.isCaller) { found += callerEnds(call, caller, record) }
        return found
    }

    /// The reasons the server's final state gives a callee device's native call, from the call as the device's user
    /// reads it (a group call's leg cancelled by another callee's answer reads `accepted` with no accepted device).
    static func calleeReasons(_ call: Call, device: String) -> Set<CallEndReason> {
        switch call.state {
        case .accepted, .ended: device == call.acceptedDeviceID ? [.remoteEnded] : [.answeredElsewhere]
        case .declined: [.declinedElsewhere]
        case .cancelled: [.remoteEnded]
        case .unanswered: [.unanswered]
        default: []
        }
    }

    /// The server's outcome matches what the users did: the call's as the caller reads it, and each callee's leg as
    /// that callee reads it (in a 1:1 call, the same call).
    private static func serverAgrees(
        _ call: Call, calls: [String: [RaceNativeCall]],
        _ record: RaceRecord
    ) -> [RaceViolation] {
        var found: [RaceViolation] = []
        func fail(_ device: String?, _ detail: String) {
            found.append(RaceViolation(.endReasonAgrees, device: device, detail))
        }
        let endedByUser = Set(calls.filter { $0.value.contains { $0.ending?.how == .local } }.keys)
        if let accepted = call.acceptedDeviceID, calls[accepted] == nil {
            fail(nil, "\(describe(call)): not a callee device of the run")
        }
        let caller = record.devices.first(where: \.isCaller)
        let callerHungUp = !(caller?.hangUps.isEmpty ?? true)
        switch call.state {
        case .cancelled where !callerHungUp:
            fail(caller?.id, "\(describe(call)), but the caller never hung up")
        case .ended where call.endedBy == call.caller.id && !callerHungUp:
            fail(caller?.id, "\(describe(call)), but the caller never hung up")
        default:
            break
        }
        let users = record.isGroup ? (call.legs ?? []).map(\.user.id) : [call.callee.id]
        for user in users {
            let view = record.views[user] ?? call
            let phones = record.devices(of: user).map(\.id)
            if let accepted = view.acceptedDeviceID, let answered = calls[accepted] {
                if !phones.contains(accepted) {
                    fail(accepted, "\(describe(view, leg: record.isGroup)), but it is not \(user)'s phone")
                } else if !answered.contains(where: { $0.answeredAt != nil }) {
                    fail(accepted, "\(describe(view, leg: record.isGroup)), but its user never tapped Answer")
                }
            }
            let ended = phones.filter(endedByUser.contains)
            switch view.state {
            case .declined where ended.isEmpty:
                fail(nil, "\(describe(view, leg: record.isGroup)), but no phone of \(user)'s declined")
            case .ended where view.endedBy == user:
                if let accepted = view.acceptedDeviceID, !endedByUser.contains(accepted) {
                    fail(
                        accepted,
                        "\(describe(view, leg: record.isGroup)), but this device's user never hung up; users who ended it: "
                            + (ended.isEmpty ? "none" : ended.joined(separator: ", ")))
                }
            case .cancelled where view.endedBy == call.caller.id && !callerHungUp:
                fail(caller?.id, "\(describe(view, leg: record.isGroup)), but the caller never hung up")
            default:
                break
            }
        }
        return found
    }

    /// The caller's app ends the call once, by its own hang-up or with the reason the server gives.
    private static func callerEnds(_ call: Call, _ caller: RaceRecord.Device, _ record: RaceRecord) -> [RaceViolation] {
        var found: [RaceViolation] = []
        func fail(_ detail: String) { found.append(RaceViolation(.endReasonAgrees, device: caller.id, detail)) }
        let remote = caller.observed.compactMap { entry -> (Date, CallEndReason)? in
            if case .callKitEnded(let id, let reason) = entry.observation, id == record.callID {
                return (entry.at, reason)
            }
            return nil
        }
        if remote.count > 1 {
            fail(
                "the app ended the call \(remote.count) times: "
                    + remote.map { "\($0.1.rawValue) at \(record.time($0.0))" }.joined(separator: ", "))
        }
        let expected: CallEndReason? =
            switch call.state {
            case .declined: .remoteEnded
            case .unanswered: .unanswered
            // Ended by a callee: the 1:1 callee, or the last callee in a group call to leave it.
            case .ended where call.endedBy != nil && call.endedBy != call.caller.id: .remoteEnded
            default: nil
            }
        if let expected {
            let endedAt = call.endedAt ?? .distantFuture
            let hungUpFirst = caller.hangUps.contains { $0 <= endedAt.addingTimeInterval(record.prompt) }
            if let first = remote.first, first.1 != expected {
                fail(
                    "the app ended the call \(first.1.rawValue) at \(record.time(first.0)); expected \(expected.rawValue) "
                        + "(\(describe(call)))")
            } else if remote.isEmpty && !hungUpFirst {
                fail("the app never learned that \(describe(call)): no end reported, no hang-up")
            }
        } else if let first = remote.first {
            fail(
                "the caller ended the call, but the app also reported \(first.1.rawValue) at \(record.time(first.0)) "
                    + "(\(describe(call)))")
        }
        for native in RaceNativeCall.calls(in: caller.callKit).calls {
            guard case .remote(let reason)? = native.ending?.how else { continue }
            if reason != .remoteEnded || call.endedBy == nil || call.endedBy == call.caller.id {
                fail("its connected native call ended \(reason.rawValue), but \(describe(call))")
            }
        }
        return found
    }

    /// The server's call in words: `the server's call is ended by alice (accepted on bob-2)`; a group callee's view
    /// `carol's leg reads ended by carol (accepted on carol-1)`.
    /// - Parameters:
    ///   - call: the call, or with `leg` a group callee's view of it.
    ///   - leg: true for a group callee's view.
    static func describe(_ call: Call, leg: Bool = false) -> String {
        var text =
            leg ? "\(call.callee.id)'s leg reads \(call.state.rawValue)" : "the server's call is \(call.state.rawValue)"
        if let user = call.endedBy { text += " by \(user)" }
        if let device = call.acceptedDeviceID { text += " (accepted on \(device))" }
        return text
    }
}
