import Foundation
import RingerSandbox
import RingerWire

/// The invariants every race exploration run must keep, checked on its ``RaceRecord``. Pure.
///
/// Each record holds one call, from the caller's phone to 1–3 of bob's phones, or in a group call to 1–2 phones of each
/// of 2–4 callees, so every native call a callee phone shows belongs to it. A group callee's phones are judged by the
/// call as that callee reads it (``RaceRecord/view(of:)``: their leg's deadline, end and accepted device), so every
/// rule below reads "the server's call" as that reading. "Up" means ringing, answering or active; a *flash* call is one
/// reported and ended within ``RaceRecord/immediate`` without an answer (a push the app could not ring,
/// reported only because Apple requires it); it never rings for the user.
///
/// **(a) every VoIP push delivered to a phone was reported to the call UI**: iOS never killed an app
/// for an unreported push (the simulated PushKit kills it), and every VoIP push APNs accepted for a
/// phone reached its app, unless the phone was off when it came and switched on only after the push
/// expired (then APNs drops it). *Android* has no report-every-push rule; the same promise there is that
/// every ringing FCM message FCM accepted reached the app (`onMessageReceived`) or was rightly withheld:
/// the app was force-stopped (or the phone offline) when it came, its `ttl` ran out while the phone was off,
/// or a newer message of the call replaced it (collapse key); after the settle step none is still held.
///
/// Invariants (b) to (d) read an Android phone's ConnectionService, as its events in the phone host tell it, as
/// CallKit: `ringing` (`setRinging`) is a report, `user_answered` (`onAnswer`) an answer, `call_active`
/// (`setActive`) its confirmation, `user_declined`/`user_hung_up` (`onReject`/`onDisconnect`) the user's ending, a
/// `DisconnectCause` made from an end reason (`ANSWERED_ELSEWHERE`, `MISSED`, `REMOTE`, `REJECTED`
/// "declined elsewhere") that end reason, and terminal FCM data messages count as alert or background pushes.
///
/// **(b) at most one native call per call id on each device**: CallKit accepted at most one report
/// with the call's UUID on each phone, whether the call came by push, by WebSocket or both; any other
/// native call made for it is a flash call.
///
/// **(c) nothing rings after the call is over**:
/// 1. when the run ends (after the settle step, past the deadline and the device grace) the server's
///    call is final and every native call on every phone has ended;
/// 2. no native call starts ringing after the ring deadline, and none rings past deadline + grace
///    (+ ``RaceRecord/prompt``): the device's own timer ends it when no event came;
/// 3. when a terminal event (WebSocket) or push (alert, background or FCM data message) for the call reaches a running app, every
///    native call up on that phone ends at once (within ``RaceRecord/immediate``);
/// 4. a native call that starts ringing after the server's call became final (a late push) stops
///    within ``RaceRecord/prompt`` (the ringing acknowledgement is refused with the final state).
///
/// **(d) exactly one end reason per native call, agreeing with the server** (CallKit keeps only the
/// first ending of a call, so "exactly one" means each ending must be the right one):
/// - a callee device's native call ends by its user (Decline/End), with its app's process, or with the
///   reason the server's final state gives it: `accepted`/`ended` → `remote_ended` on the device that
///   answered, `answered_elsewhere` on the others; `declined` → `declined_elsewhere`; `cancelled` →
///   `remote_ended`; `unanswered` → `unanswered`. `unanswered` is also right for an ending at or after
///   the deadline whatever the server decided (the device's own timer, or a push read after expiry:
///   the device could not know better). A failed answer action is never right: an answer that lost
///   must end with the reason it lost to. A flash call made after this device's user ended the call, or
///   after its native call ended with its app's process, may carry any reason (ambiguous: the user's own
///   decline has no remote reason to repeat; a call up when its process died ends `failed` in the next).
/// - the server agrees with the users: a device whose answer was confirmed is the call's accepted
///   device; the accepted device's user tapped Answer; a `declined` call was declined by a callee
///   user; a call `ended` by the callee was ended by the user of the device that answered (not by
///   another device's late decline); a `cancelled` call or one `ended` by the caller was hung up by
///   the caller; and every hang-up a phone made was acknowledged by the server.
/// - the caller's app ends the call exactly once: by its own hang-up when it cancelled or ended the
///   call, else with `remote_ended` (declined, ended by the callee) or `unanswered`; a caller that hung
///   up before the server's final event reached it (within ``RaceRecord/prompt``) may have ended it
///   locally instead. Its connected native call ends by its user or with `remote_ended`.
///
/// **(e) a group call's legs agree** (``legsAgree(_:)``): every leg and every callee's reading is final when the run
/// ends, at most one leg was accepted under `first_answer`, the call's accepted device is an accepted leg's, and each
/// callee reads the call as their own leg.
public enum RaceInvariants {
    /// Every violation in `record`, grouped by invariant (a to e).
    /// - Parameter record: what a run observed.
    /// - Returns: the violations; empty when the run kept every invariant.
    public static func check(_ record: RaceRecord) -> [RaceViolation] {
        pushesReported(record) + oneNativeCall(record) + nothingRingsAfterEnd(record) + endReasonsAgree(record)
            + legsAgree(record)
    }

    // MARK: (a)

    static func pushesReported(_ record: RaceRecord) -> [RaceViolation] {
        var found: [RaceViolation] = []
        for device in record.devices where device.platform == .android {
            for message in device.fcmMessages {
                let what =
                    "ringing FCM message \(message.name.suffix(12)) (accepted at \(record.time(message.acceptedAt)))"
                switch message.fate {
                case .delivered(.userVisible?), .delivered(.silent?), .expired, .collapsed:
                    continue
                case .delivered(.notDelivered(let reason)?)
                where reason.contains("force-stopped") || reason.contains("offline"):
                    continue
                case .delivered(.notDelivered(let reason)?):
                    found.append(
                        RaceViolation(.pushReported, device: device.id, "\(what) never reached the app: \(reason)"))
                case let fate:
                    found.append(
                        RaceViolation(
                            .pushReported, device: device.id,
                            "\(what) is still \(fate?.name ?? "unknown") after every phone was on and awake"))
                }
            }
        }
        for device in record.devices {
            var received: Set<String> = []
            for entry in device.observed {
                switch entry.observation {
                case .pushReceived(let apnsID, _): received.insert(apnsID)
                case .killedBySystem(let reason):
                    found.append(
                        RaceViolation(
                            .pushReported, device: device.id,
                            "iOS killed the app at \(record.time(entry.at)): \(reason)"))
                default: break
                }
            }
            for push in device.voipPushes
            where !received.contains(push.apnsID) && !heldUntilExpired(push, on: device, record) {
                found.append(
                    RaceViolation(
                        .pushReported, device: device.id,
                        "VoIP push \(push.apnsID) (sent at \(record.time(push.sentAt))) never reached the app, "
                            + "although the phone was on to receive it before it expired"))
            }
        }
        return found
    }

    /// True when APNs rightly never delivered `push`: the phone was off after it was sent and came back
    /// on only after its `apns-expiration` (whole seconds, the ring deadline rounded down).
    private static func heldUntilExpired(
        _ push: RaceRecord.Push, on device: RaceRecord.Device, _ record: RaceRecord
    ) -> Bool {
        // The push expires at its recipient's deadline: a callee rung into a group call later has a later one.
        guard let deadline = record.view(of: device)?.expiresAt else { return true }
        let expiration = deadline.timeIntervalSince1970.rounded(.down)
        let from = push.sentAt.addingTimeInterval(-record.prompt)
        var offSince: Date? = (device.power.last { $0.at <= from }?.on ?? true) ? nil : from
        for change in device.power where change.at > from {
            if !change.on {
                offSince = offSince ?? change.at
            } else if offSince != nil {
                if change.at.timeIntervalSince1970 > expiration - record.immediate { return true }
                offSince = nil
            }
        }
        return offSince != nil
    }

    // MARK: (b)

    static func oneNativeCall(_ record: RaceRecord) -> [RaceViolation] {
        var found: [RaceViolation] = []
        let uuid = UUID(uuidString: record.callID)
        for device in record.devices {
            let calls = RaceNativeCall.calls(of: device)
            let same = calls.filter { $0.id == uuid }
            if same.count > 1 {
                found.append(
                    RaceViolation(
                        .oneNativeCall, device: device.id,
                        "\(same.count) native calls with the call's UUID, reported at "
                            + same.map { record.time($0.reportedAt) }.joined(separator: ", ")))
            }
            for call in calls where call.id != uuid && !call.isFlash(within: record.immediate) {
                let end = call.ending.map { "\($0.how) at \(record.time($0.at))" } ?? "never ended"
                found.append(
                    RaceViolation(
                        .oneNativeCall, device: device.id,
                        "a second native call \(call.id.uuidString.lowercased()) for the call, reported at "
                            + "\(record.time(call.reportedAt))\(call.answeredAt == nil ? "" : ", answered"): \(end)"))
            }
        }
        return found
    }
}
