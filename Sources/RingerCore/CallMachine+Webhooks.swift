public import RingerWire

/// An event for the app's backend that one stored change of a call makes (decision 0009 §3): its type and what it is
/// about beyond the call.
public struct CallWebhookEvent: Hashable, Sendable {
    /// What happened.
    public var type: WebhookEventType
    /// The callee a ringing acknowledgement or a leg update is about.
    public var userID: String?
    /// The device that acknowledged ringing.
    public var deviceID: String?

    /// Creates an event.
    public init(type: WebhookEventType, userID: String? = nil, deviceID: String? = nil) {
        self.type = type
        self.userID = userID
        self.deviceID = deviceID
    }
}

extension CallMachine {
    /// The events the change from `before` to `after` makes, in order: a new call's `call.created`, each device's
    /// first ringing acknowledgement, each group leg whose state changed (or that was rung), then the call's new
    /// state. Derived from the states, not from the input that caused them, so every path that changes a call (an API
    /// request, a timer, the ring sweep, another server) tells the backend alike.
    /// - Parameters:
    ///   - before: the call as it was read inside the transaction; nil for a new call.
    ///   - after: the call as it is stored.
    public static func webhookEvents(from before: CallMachine?, to after: CallMachine) -> [CallWebhookEvent] {
        var events: [CallWebhookEvent] = []
        if before == nil { events.append(CallWebhookEvent(type: .callCreated)) }
        let earlier = before.map(\.legSnapshots) ?? [:]
        for (user, leg) in after.legSnapshots.sorted(by: { $0.value.order < $1.value.order }) {
            let was = earlier[user]
            for device in leg.ringing where !(was?.ringing.contains(device) ?? false) {
                events.append(CallWebhookEvent(type: .callRinging, userID: user, deviceID: device))
            }
            // A 1:1 call's callee is the call: its state is told by the call's own event below. A leg that rings from
            // the call's creation is told by `call.created`; one that could not (busy, failed) by its own update.
            guard after.legs != nil, was?.state != leg.state, before != nil || leg.state != LegState.ringing.rawValue
            else { continue }
            events.append(CallWebhookEvent(type: .callLegUpdated, userID: user))
        }
        if before?.call.state != after.call.state, let type = WebhookEventType.reaching(after.call.state) {
            events.append(CallWebhookEvent(type: type))
        }
        return events
    }

    /// Each callee's devices that acknowledged ringing and where their part of the call stands, with their place in
    /// the order rung: a 1:1 call read as one leg, so a call a ring-more turned into a group call compares alike.
    private var legSnapshots: [String: (order: Int, state: String, ringing: [String])] {
        guard let legs, let callLegs = call.legs else {
            return [call.callee.id: (0, call.state.rawValue, ringingDeviceIDs)]
        }
        var snapshots: [String: (order: Int, state: String, ringing: [String])] = [:]
        for (index, (record, leg)) in zip(legs, callLegs).enumerated() {
            snapshots[record.userID] = (index, leg.state.rawValue, record.ringingDeviceIDs)
        }
        return snapshots
    }
}
