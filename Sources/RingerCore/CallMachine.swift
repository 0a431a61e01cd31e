public import Foundation
public import RingerWire

/// The life of one call as a pure value: every input returns the effects the owner must carry out.
///
/// Deterministic and free of I/O: time comes in as an argument, and the server persists the machine
/// (it is `Codable`) before executing the effects. States and transitions are drawn in
/// docs/call-lifecycle.md.
///
/// ```swift
/// var (machine, effects) = CallMachine.invite(callID: id, caller: alice, callee: bob, hasVideo: false,
///                                            calleeDevices: devices, calleeBusy: false, now: now,
///                                            ringTimeout: 45)
/// let more = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: later)
/// ```
public struct CallMachine: Codable, Hashable, Sendable {
    /// The call as the API shows it; for a group call, as its caller reads it (``view(for:)`` gives each callee's).
    public internal(set) var call: Call
    /// The callee devices rung when the call was placed (a 1:1 call; a group call keeps them per leg).
    public internal(set) var calleeDevices: [CalleeDevice]
    /// Callee devices that acknowledged `ringing`, in order (a 1:1 call).
    public internal(set) var ringingDeviceIDs: [String]
    /// The callee device that declined, when the call ended `declined` (a 1:1 call).
    public internal(set) var declinedDeviceID: String?
    /// A group call's server-side leg records, in the order of ``Call/legs``; nil for a 1:1 call, whose stored JSON
    /// then has no `legs` key (decision 0007 §2).
    public internal(set) var legs: [LegRecord]?
    /// True when the call rings callees already in an answered call as a waiting call rather than `busy` (the request's
    /// `call_waiting`, else the server's `--call-waiting`), kept for the people rung into it later; nil (stored JSON
    /// without the key) is false.
    public internal(set) var callWaiting: Bool?

    /// Places a call: decides at once whether it rings, is busy or cannot ring at all.
    ///
    /// - Parameters:
    ///   - callID: a lowercase UUID string.
    ///   - caller: the calling user.
    ///   - callee: the called user; must differ from `caller` (the server checks).
    ///   - hasVideo: whether the caller asked for video.
    ///   - calleeDevices: the callee's registered devices.
    ///   - calleeOnline: true when the callee holds at least one open WebSocket.
    ///   - calleeBusy: true when the callee is already in an accepted call.
    ///   - callWaiting: true to ring a busy callee anyway, the call marked ``Call/waiting`` (their phone shows a
    ///     second call); false to end the call `busy` at once.
    ///   - now: the current time.
    ///   - ringTimeout: seconds the call may ring before it ends `unanswered`.
    /// - Returns: the machine and the effects to carry out.
    public static func invite(
        callID: String, caller: Party, callee: Party, hasVideo: Bool,
        calleeDevices: [CalleeDevice], calleeOnline: Bool = false, calleeBusy: Bool, callWaiting: Bool = false,
        now: Date, ringTimeout: TimeInterval
    ) -> (CallMachine, [CallEffect]) {
        var call = Call(
            callID: callID, state: .ringing, caller: caller, callee: callee, hasVideo: hasVideo,
            createdAt: now, expiresAt: now.addingTimeInterval(ringTimeout))
        if calleeBusy && !callWaiting {
            call.state = .busy
            call.endedAt = now
            let machine = CallMachine(call: call, calleeDevices: calleeDevices, ringingDeviceIDs: [])
            return (machine, [.publish(.callEnded, to: .user(caller.id))])
        }
        let wakeable = calleeDevices.filter { $0.canBeWoken }
        if wakeable.isEmpty && !calleeOnline {
            call.state = .failed
            call.endedAt = now
            // One sentence whatever the cause: whether the callee has no device or only devices that cannot
            // be woken is the callee's business, not the caller's (docs/security.md).
            call.failureReason = "\(callee.id) cannot be reached"
            let machine = CallMachine(call: call, calleeDevices: calleeDevices, ringingDeviceIDs: [])
            return (machine, [.publish(.callEnded, to: .user(caller.id))])
        }
        // It rings: a busy callee is rung as a waiting call.
        if calleeBusy { call.waiting = true }
        var effects: [CallEffect] = [.publish(.callIncoming, to: .user(callee.id))]
        effects += wakeable.map { .pushIncomingCall(deviceID: $0.id) }
        effects.append(.scheduleRingTimeout(at: call.expiresAt))
        var machine = CallMachine(call: call, calleeDevices: calleeDevices, ringingDeviceIDs: [])
        machine.callWaiting = callWaiting ? true : nil
        return (machine, effects)
    }

    init(call: Call, calleeDevices: [CalleeDevice], ringingDeviceIDs: [String], legs: [LegRecord]? = nil) {
        self.call = call
        self.calleeDevices = calleeDevices
        self.ringingDeviceIDs = ringingDeviceIDs
        self.legs = legs
    }

    /// Whether `user` is the caller or a callee (of a group call: has a leg, in any state). Anyone else is told the
    /// call does not exist, so a stranger learns nothing of it (docs/security.md).
    public func isParticipant(_ user: String) -> Bool {
        guard let legs = call.legs else { return user == call.caller.id || user == call.callee.id }
        return user == call.caller.id || legs.contains { $0.user.id == user }
    }

    /// The callee devices that may be ringing now: those that acknowledged `ringing`, and those that can be woken
    /// (each was sent the ringing push when the call was placed). A push that stops the ringing matters most there.
    public var devicesThatMayRing: Set<String> {
        Set(ringingDeviceIDs).union(calleeDevices.filter(\.canBeWoken).map(\.id))
    }

    /// Applies an input to a stored call as the server must: a ring deadline that has passed wins over any input,
    /// so the call first ends `unanswered` if its deadline is due, even when no timer has fired yet (an accept at
    /// 45.2 s does not win over the ring-out at 45 s; the timer is only how the server learns the time came), and
    /// then `input` meets the call as it now is.
    /// - Parameters:
    ///   - input: what happened; `.ringTimeout` alone is the timer firing.
    ///   - actor: who did it.
    ///   - now: the current time.
    /// - Returns: the effects of the ring-out, if any, then those of `input`.
    /// - Throws: ``CallRuleError`` when `input` is not allowed (for instance an accept after the deadline); the
    ///   machine is then unchanged, the due ring-out included.
    public mutating func apply(_ input: CallInput, by actor: CallActor, at now: Date) throws -> [CallEffect] {
        var next = self
        var effects = try next.handle(.ringTimeout, by: .system, at: now)
        if input != .ringTimeout { effects += try next.handle(input, by: actor, at: now) }
        self = next
        return effects
    }

    /// Applies an input.
    ///
    /// Repeating an action that already took effect (accept twice from the same device, end twice)
    /// succeeds with no effects, so clients may retry safely.
    /// - Parameters:
    ///   - input: what happened.
    ///   - actor: who did it; device ownership is checked by the caller of this method.
    ///   - now: the current time.
    /// - Returns: the effects to carry out, possibly none.
    /// - Throws: ``CallRuleError`` when the input is not allowed; the machine is then unchanged.
    public mutating func handle(_ input: CallInput, by actor: CallActor, at now: Date) throws -> [CallEffect] {
        if call.legs != nil { return try handleGroup(input, by: actor, at: now) }
        if case .ringMore(let more) = input {
            var group = self
            group.becomeGroup(at: now)
            var effects = try group.handleGroup(.ringMore(more), by: actor, at: now)
            // A ring-more that rang nobody leaves a 1:1 call as it was.
            guard !effects.isEmpty else { return [] }
            self = group
            // The callee already in an accepted call is now watched as a leg, like every callee who joins.
            if let acceptedAt = call.acceptedAt, call.state == .accepted {
                effects.insert(.watchLeg(userID: call.callee.id, acceptedAt: acceptedAt), at: 0)
            }
            return effects
        }
        let state = call.state
        let caller = call.caller.id
        let callee = call.callee.id
        if case .user(let user) = actor, !isParticipant(user) {
            throw CallRuleError.notParticipant(state: state)
        }
        switch input {
        case .ringing(let device):
            try requireCallee(actor, "only the callee's devices ring")
            guard state == .ringing else {
                if state == .accepted, call.acceptedDeviceID == device { return [] }
                throw CallRuleError.stateConflict("the call is no longer ringing", state: state)
            }
            guard !ringingDeviceIDs.contains(device) else { return [] }
            ringingDeviceIDs.append(device)
            return ringingDeviceIDs.count == 1 ? [.publish(.callRinging, to: .user(caller))] : []

        case .accept(let device):
            try requireCallee(actor, "only the callee can accept")
            switch state {
            case .ringing:
                call.state = .accepted
                call.acceptedAt = now
                call.acceptedDeviceID = device
                let others = EventRecipient.userExceptDevice(callee, deviceID: device)
                return [
                    .cancelRingTimeout, .watchAcceptedCall(acceptedAt: now),
                    .publish(.callAccepted, to: .user(caller)),
                    .publish(.callAnsweredElsewhere, to: others),
                    .pushUpdate(.callAnsweredElsewhere, to: others),
                ]
            case .accepted where call.acceptedDeviceID == device:
                return []
            case .accepted:
                throw CallRuleError.answeredElsewhere(state: state)
            case .ended where call.acceptedDeviceID != device:
                throw CallRuleError.answeredElsewhere(state: state)
            default:
                throw CallRuleError.stateConflict("the call can no longer be accepted", state: state)
            }

        case .decline(let device):
            try requireCallee(actor, "only the callee can decline")
            switch state {
            case .ringing:
                finish(.declined, by: callee, at: now)
                declinedDeviceID = device
                let others = EventRecipient.userExceptDevice(callee, deviceID: device)
                return [
                    .cancelRingTimeout,
                    .publish(.callDeclined, to: .user(caller)),
                    .publish(.callDeclinedElsewhere, to: others),
                    .pushUpdate(.callDeclinedElsewhere, to: others),
                ]
            case .declined where declinedDeviceID == device:
                return []
            case .accepted where call.acceptedDeviceID != device:
                throw CallRuleError.answeredElsewhere(state: state)
            default:
                throw CallRuleError.stateConflict("the call can no longer be declined", state: state)
            }

        case .cancel:
            guard actor == .user(caller) || actor == .backend else {
                throw CallRuleError.wrongParty("only the caller can cancel; the callee declines", state: state)
            }
            switch state {
            case .ringing:
                return cancel(by: actor, at: now)
            case .cancelled:
                return []
            case .accepted:
                throw CallRuleError.stateConflict("the call was answered: end it instead", state: state)
            default:
                throw CallRuleError.stateConflict("the call is already over", state: state)
            }

        case .end where actor == .backend:
            switch state {
            case .ringing:
                return cancel(by: actor, at: now)
            case .accepted:
                finish(.ended, by: nil, at: now)
                call.endReason = .endedByBackend
                // As for the server's own ends, no update push: the apps in the call hear `call.ended` on their
                // sockets, or a 409 on their next keepalive.
                return [
                    .stopWatchingCall, .publish(.callEnded, to: .user(caller)), .publish(.callEnded, to: .user(callee)),
                ]
            default:
                // Over already, whoever ended it: a backend retrying its end is answered as if it had ended it now.
                return []
            }

        case .end:
            guard case .user(let user) = actor else {
                throw CallRuleError.wrongParty("only a participant ends a call", state: state)
            }
            switch state {
            case .accepted:
                finish(.ended, by: user, at: now)
                return [
                    .stopWatchingCall, .publish(.callEnded, to: .user(caller)), .publish(.callEnded, to: .user(callee)),
                ]
            case .ended:
                return []
            case .ringing:
                let hint = user == caller ? "cancel it" : "decline it"
                throw CallRuleError.stateConflict("the call was not answered yet: \(hint) instead", state: state)
            default:
                throw CallRuleError.stateConflict("the call is already over", state: state)
            }

        case .ringTimeout:
            guard state == .ringing, now >= call.expiresAt else { return [] }
            finish(.unanswered, by: nil, at: now)
            return [
                .publish(.callUnanswered, to: .user(caller)), .publish(.callUnanswered, to: .user(callee)),
                .pushUpdate(.callUnanswered, to: .user(callee)),
            ]

        case .connectionLost, .maximumDurationReached:
            guard actor == .system else {
                throw CallRuleError.wrongParty(
                    "only the server ends a call it lost or that lasted too long", state: state)
            }
            // Like a ring timeout, a decision that arrives after the call ended otherwise changes nothing.
            guard state == .accepted else { return [] }
            finish(.ended, by: nil, at: now)
            call.endReason = input == .connectionLost ? .connectionLost : .maximumDuration
            // No update push: an app still holding the call hears `call.ended` on its socket, or a 409 on its next
            // keepalive.
            return [
                .stopWatchingCall, .publish(.callEnded, to: .user(caller)), .publish(.callEnded, to: .user(callee)),
            ]

        case .legConnectionLost:
            guard actor == .system else {
                throw CallRuleError.wrongParty("only the server ends a leg it lost", state: state)
            }
            // A 1:1 call's silence is judged for the whole call (``CallInput/connectionLost``).
            return []

        case .ringMore:
            return []  // Handled above, before the 1:1 rules.
        }
    }

    /// A ringing call's end before any answer, by its caller or the app's backend: the callee's devices stop
    /// ringing. The backend's cancel names nobody as `ended_by`, and the caller hears it too (their app did not do it).
    private mutating func cancel(by actor: CallActor, at now: Date) -> [CallEffect] {
        let (caller, callee) = (call.caller.id, call.callee.id)
        let byBackend = actor == .backend
        finish(.cancelled, by: byBackend ? nil : caller, at: now)
        return [
            .cancelRingTimeout, .publish(.callCancelled, to: .user(callee)),
            .pushUpdate(.callCancelled, to: .user(callee)),
        ] + (byBackend ? [.publish(.callCancelled, to: .user(caller))] : [])
    }

    private func requireCallee(_ actor: CallActor, _ detail: String) throws {
        guard actor == .user(call.callee.id) else {
            throw CallRuleError.wrongParty(detail, state: call.state)
        }
    }

    private mutating func finish(_ state: CallState, by user: String?, at now: Date) {
        call.state = state
        call.endedAt = now
        call.endedBy = user
    }

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case call, calleeDevices, legs, callWaiting
        case ringingDeviceIDs = "ringingDeviceIds"
        case declinedDeviceID = "declinedDeviceId"
    }
}
