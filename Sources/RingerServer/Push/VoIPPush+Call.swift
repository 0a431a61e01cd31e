import Foundation
import RingerWire

extension VoIPPush.Body {
    /// The ringing body of `call`: one body for both providers, the VoIP push's `ringer` on APNs and the JSON
    /// string in `data.ringer` on FCM, so an iPhone and an Android phone read the same fields.
    /// - Parameters:
    ///   - call: the ringing call.
    ///   - sentAt: the server's time of the push (its `sent_at`).
    ///
    /// A group call is given as its recipient reads it (``CallMachine/view(for:)``): `callee_id` is the recipient,
    /// `expires_at` their leg's deadline, and `group` counts every callee and names the others in the order rung, as
    /// many as fit (``setGroup(count:others:)``).
    init(ringing call: Call, sentAt: Date) {
        self.init(
            callID: call.callID, caller: call.caller, calleeID: call.callee.id, hasVideo: call.hasVideo,
            sentAt: sentAt.unixMilliseconds, expiresAt: call.expiresAt.unixMilliseconds,
            waiting: call.waiting == true ? true : nil)
        if let legs = call.legs {
            setGroup(count: legs.count, others: legs.map(\.user).filter { $0.id != call.callee.id })
        }
    }
}
