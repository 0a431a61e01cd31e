import Foundation
import RingerWire

extension RaceInvariants {
    // MARK: (e)

    /// (e) A group call's legs agree with each other and with the call: when the run ends every leg is final; under
    /// `first_answer` at most one leg was ever accepted (the race between two callees' answers has one winner); the
    /// call's `accepted_device_id` is the device of an accepted leg; and a callee's reading of the call is their leg.
    /// A 1:1 call has no legs and keeps it trivially.
    static func legsAgree(_ record: RaceRecord) -> [RaceViolation] {
        guard let call = record.call, let legs = call.legs else { return [] }
        var found: [RaceViolation] = []
        func fail(_ device: String?, _ detail: String) {
            found.append(RaceViolation(.legsAgree, device: device, detail))
        }
        for leg in legs where leg.state.isLive {
            fail(nil, "\(leg.user.id)'s leg is still \(leg.state.rawValue) when the run ended")
        }
        let accepted = legs.filter { $0.acceptedAt != nil }
        if call.answerPolicy == .firstAnswer, accepted.count > 1 {
            fail(
                nil,
                "first_answer, but \(accepted.count) legs were accepted: "
                    + accepted.map { "\($0.user.id) on \($0.acceptedDeviceID ?? "?")" }.joined(separator: ", "))
        }
        if let device = call.acceptedDeviceID, !accepted.contains(where: { $0.acceptedDeviceID == device }) {
            fail(device, "the call was accepted on \(device), which no leg was accepted on")
        }
        if call.acceptedDeviceID == nil, let first = accepted.first {
            fail(first.acceptedDeviceID, "\(first.user.id)'s leg was accepted, but the call never was")
        }
        for leg in legs {
            guard let view = record.views[leg.user.id] else { continue }
            if view.callee.id != leg.user.id || view.expiresAt != leg.expiresAt {
                fail(nil, "\(leg.user.id) reads the call as \(view.callee.id)'s, not as their own leg")
            }
        }
        return found
    }
}
