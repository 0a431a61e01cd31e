public import Foundation
public import RingerWire

/// The server's side of one callee's leg of a group call, beside the leg the API shows (``Call/legs``, same
/// order): what a 1:1 call keeps in ``CallMachine/calleeDevices`` and its siblings, per callee.
public struct LegRecord: Codable, Hashable, Sendable {
    /// The callee.
    public var userID: String
    /// The callee's devices when the leg was rung.
    public var calleeDevices: [CalleeDevice]
    /// The callee's devices that acknowledged `ringing`, in order.
    public var ringingDeviceIDs: [String]
    /// The callee's device that declined, when the leg ended `declined`.
    public var declinedDeviceID: String?
    /// True when the leg was rung while a `first_answer` call rang: it is in the race, and the first accept among
    /// such legs stops the others (decision 0007 §3). Legs rung into a call that is up are never in it.
    public var exclusive: Bool

    /// The keys as the stored JSON spells them (`user_id`, `ringing_device_ids`, `declined_device_id`).
    private enum CodingKeys: String, CodingKey {
        case calleeDevices, exclusive
        case userID = "userId"
        case ringingDeviceIDs = "ringingDeviceIds"
        case declinedDeviceID = "declinedDeviceId"
    }
}

/// Group calls: one call, a leg per callee (decision 0007, docs/call-lifecycle.md "Group calls").
///
/// The call's own state is derived from its legs: `ringing` while none was ever accepted and one rings, `accepted`
/// from the first accept until the caller ends it or the last callee in it leaves, `cancelled` when the caller
/// gives up, `declined` when every leg declined, `busy` or `failed` when none could ring at all, `unanswered` for
/// any other mix of legs that ended unanswered. Every input is checked and decided here; the owner renders each
/// event for its recipient with ``view(for:)``.
extension CallMachine {
    /// Places a group call: rings every invitee who can ring, and records a `busy` or `failed` leg for those who
    /// cannot. When none rings the call ends at once, `busy` if one was busy and `failed` otherwise, and only the
    /// caller hears of it (`call.ended`), as for a 1:1 call.
    ///
    /// - Parameters:
    ///   - callID: a lowercase UUID string.
    ///   - caller: the calling user.
    ///   - invitees: the callees in order, distinct, none of them the caller (the server checks); the first is the
    ///     call's ``Call/callee``.
    ///   - policy: what an answer does (``AnswerPolicy``; an unknown value is taken as `first_answer`).
    ///   - hasVideo: whether the caller asked for video.
    ///   - callWaiting: true to ring a callee already in an answered call anyway, their leg marked waiting; false to
    ///     record a `busy` leg for them. Kept for the people rung into the call later.
    ///   - now: the current time.
    ///   - ringTimeout: seconds each leg rings before it ends `unanswered`.
    /// - Returns: the machine and the effects to carry out: per ringing callee `call.incoming` and a
    ///   ``CallEffect/pushLegIncoming(userID:deviceID:)`` per device that can be woken, then the ring timer.
    public static func inviteGroup(
        callID: String, caller: Party, invitees: [Invitee], policy: AnswerPolicy, hasVideo: Bool,
        callWaiting: Bool = false, now: Date, ringTimeout: TimeInterval
    ) -> (CallMachine, [CallEffect]) {
        let call = Call(
            callID: callID, state: .ringing, caller: caller, callee: invitees.first?.party ?? Party(id: ""),
            hasVideo: hasVideo, createdAt: now, expiresAt: now.addingTimeInterval(ringTimeout), legs: [],
            answerPolicy: policy)
        var machine = CallMachine(call: call, calleeDevices: [], ringingDeviceIDs: [], legs: [])
        machine.callWaiting = callWaiting ? true : nil
        var effects: [CallEffect] = []
        var seen: Set<String> = [caller.id]
        // The server refuses repeats and the caller; a machine given them anyway rings each person once.
        for invitee in invitees where seen.insert(invitee.party.id).inserted {
            effects += machine.addLeg(
                invitee, now: now, ringTimeout: ringTimeout, exclusive: policy != .allMayJoin)
        }
        guard let deadline = machine.earliestRingingDeadline else {
            let legs = machine.call.legs ?? []
            machine.call.state = legs.contains { $0.state == .busy } ? .busy : .failed
            machine.call.endedAt = now
            if machine.call.state == .failed {
                // The same words as a 1:1 call, for everyone rung: the cause is in the server's log.
                let names = legs.map(\.user.id).joined(separator: ", ")
                machine.call.failureReason = "\(names) cannot be reached"
            }
            return (machine, [.publish(.callEnded, to: .user(caller.id))])
        }
        effects.append(.scheduleRingTimeout(at: deadline))
        return (machine, effects)
    }

    /// The call as `user` reads it, in events, pushes and `GET /v1/calls/{id}` (decision 0007 §1).
    ///
    /// A callee of a group call reads their own leg: ``Call/callee`` is them, and `state`, `expires_at`,
    /// `accepted_at`, `accepted_device_id`, `ended_at`, `ended_by` and `failure_reason` are their leg's (`left` reads
    /// `ended`; a leg stopped by another callee's answer reads the call's own state, `accepted` then `ended`, with no
    /// `accepted_device_id`, as a 1:1 callee's other devices read an answer), so every rule a phone has for a 1:1 call holds for them unchanged. The
    /// caller, anyone else, and everyone in a 1:1 call read ``call`` as it is. Both carry ``Call/legs``.
    /// - Parameter user: the reader's user id.
    public func view(for user: String) -> Call {
        guard user != call.caller.id, let leg = call.leg(of: user) else { return call }
        var view = call
        view.callee = leg.user
        view.expiresAt = leg.expiresAt
        view.acceptedAt = leg.acceptedAt
        view.acceptedDeviceID = leg.acceptedDeviceID
        view.endedAt = leg.endedAt
        view.endedBy = leg.endedBy
        view.endReason = nil
        view.failureReason = leg.failureReason
        view.waiting = leg.waiting
        // Another callee's phone is theirs to know: the caller sees the device that answered, as in a 1:1 call.
        view.legs = call.legs?.map { other in
            var other = other
            if other.user.id != user { other.acceptedDeviceID = nil }
            return other
        }
        switch leg.state {
        case .left:
            view.state = .ended
            // The server's reason belongs to a leg that ended with the call, not to one that hung up earlier.
            if leg.endedBy == nil, call.state == .ended, call.endedAt == leg.endedAt { view.endReason = call.endReason }
        case .cancelled where isAnsweredByAnotherCallee(leg):
            // Followed to its end as a 1:1 callee's other devices follow an answered call: read `accepted` forever, a
            // call long over would look live to this callee's lists and to a phone that syncs on launch.
            view.state = call.state
            view.acceptedAt = call.acceptedAt
            view.endedAt = call.endedAt
            view.endedBy = call.endedBy
            view.endReason = call.endReason
        default:
            view.state = CallState(rawValue: leg.state.rawValue)
        }
        return view
    }

    /// Whether `user` missed the call: rung as a callee, they never answered, because it rang out, its caller or the
    /// app's backend gave up, or they were busy (a "missed call" in the phone's own history). A callee whose leg
    /// stopped because another callee answered reads the answered call instead, so did not miss it; a decline was
    /// their choice; a call that could ring none of their phones (`failed`) never reached them.
    public func isMissed(by user: String) -> Bool {
        guard user != call.caller.id, isParticipant(user) else { return false }
        return [CallState.unanswered, .cancelled, .busy].contains(view(for: user).state)
    }

    /// Every user of the call: the caller, then the callee or each callee with a leg in the order rung. Whoever
    /// changes the call holds all their locks (a group call's accept makes its caller busy too).
    public var parties: [String] {
        [call.caller.id] + (call.legs?.map(\.user.id) ?? [call.callee.id])
    }

    /// The devices of `user` that may be ringing for the call now: those that acknowledged `ringing`, and those that
    /// can be woken (each was sent the ringing push). A push that stops the ringing matters most there.
    /// - Parameter user: a callee; the caller's and a stranger's set is empty.
    public func devicesThatMayRing(of user: String) -> Set<String> {
        guard let legs else { return user == call.callee.id ? devicesThatMayRing : [] }
        guard let record = legs.first(where: { $0.userID == user }) else { return [] }
        return Set(record.ringingDeviceIDs).union(record.calleeDevices.filter(\.canBeWoken).map(\.id))
    }

    // MARK: Deciding

    /// ``handle(_:by:at:)`` for a call with legs; the machine is unchanged when it throws.
    mutating func handleGroup(_ input: CallInput, by actor: CallActor, at now: Date) throws -> [CallEffect] {
        if case .user(let user) = actor, !isParticipant(user) {
            throw CallRuleError.notParticipant(state: call.state)
        }
        var next = self
        let effects = try next.decideGroup(input, by: actor, at: now)
        self = next
        return effects
    }

    private mutating func decideGroup(_ input: CallInput, by actor: CallActor, at now: Date) throws -> [CallEffect] {
        let caller = call.caller.id
        switch input {
        case .ringing(let device):
            let index = try requireLeg(actor, "only a callee's devices ring")
            let leg = groupLegs[index]
            guard leg.state == .ringing else {
                if leg.state == .accepted, leg.acceptedDeviceID == device { return [] }
                throw refusal(.stateConflict("the call is no longer ringing", state: call.state), leg: index)
            }
            guard !records[index].ringingDeviceIDs.contains(device) else { return [] }
            records[index].ringingDeviceIDs.append(device)
            guard leg.ringingAt == nil else { return [] }
            // `call.ringing` means what it means in a 1:1 call, the call's first ring, so never once it is accepted.
            let firstOfCall = call.state == .ringing && !groupLegs.contains { $0.ringingAt != nil }
            groupLegs[index].ringingAt = now
            return [.publish(firstOfCall ? .callRinging : .callUpdated, to: .user(caller))]

        case .accept(let device):
            let index = try requireLeg(actor, "only a callee can accept")
            let leg = groupLegs[index]
            switch leg.state {
            case .ringing:
                return accept(index, device: device, at: now)
            case .accepted where leg.acceptedDeviceID == device:
                return []
            case .accepted:
                throw refusal(.answeredElsewhere(state: call.state), leg: index)
            case .cancelled where isAnsweredByAnotherCallee(leg):
                throw refusal(.answeredElsewhere(state: call.state), leg: index)
            case .left where leg.acceptedDeviceID != device:
                throw refusal(.answeredElsewhere(state: call.state), leg: index)
            default:
                throw refusal(.stateConflict("the call can no longer be accepted", state: call.state), leg: index)
            }

        case .decline(let device):
            let index = try requireLeg(actor, "only a callee can decline")
            let leg = groupLegs[index]
            switch leg.state {
            case .ringing:
                return decline(index, device: device, at: now)
            case .declined where records[index].declinedDeviceID == device:
                return []
            case .accepted where leg.acceptedDeviceID != device:
                throw refusal(.answeredElsewhere(state: call.state), leg: index)
            case .cancelled where isAnsweredByAnotherCallee(leg):
                throw refusal(.answeredElsewhere(state: call.state), leg: index)
            default:
                throw refusal(.stateConflict("the call can no longer be declined", state: call.state), leg: index)
            }

        case .cancel:
            guard actor == .user(caller) || actor == .backend else {
                let error = CallRuleError.wrongParty("only the caller can cancel; a callee declines", state: call.state)
                throw legIndex(of: actor).map { refusal(error, leg: $0) } ?? error
            }
            switch call.state {
            case .ringing:
                return cancelGroup(by: actor, at: now)
            case .cancelled:
                return []
            case .accepted:
                throw CallRuleError.stateConflict("the call was answered: end it instead", state: call.state)
            default:
                throw CallRuleError.stateConflict("the call is already over", state: call.state)
            }

        case .end where actor == .backend:
            switch call.state {
            case .ringing: return cancelGroup(by: actor, at: now)
            case .accepted: return endCall(by: nil, reason: .endedByBackend, at: now)
            default: return []  // Over already: a backend's retried end changes nothing.
            }

        case .end:
            guard case .user(let user) = actor else {
                throw CallRuleError.wrongParty("only a participant ends a call", state: call.state)
            }
            if user == caller {
                switch call.state {
                case .accepted:
                    return endCall(by: caller, reason: nil, at: now)
                case .ended:
                    return []
                case .ringing:
                    throw CallRuleError.stateConflict(
                        "the call was not answered yet: cancel it instead", state: call.state)
                default:
                    throw CallRuleError.stateConflict("the call is already over", state: call.state)
                }
            }
            let index = try requireLeg(actor, "only a participant ends a call")
            switch groupLegs[index].state {
            case .accepted:
                return leave(index, by: user, at: now)
            case .left:
                return []
            case .ringing:
                throw refusal(
                    .stateConflict("the call was not answered yet: decline it instead", state: call.state),
                    leg: index)
            default:
                throw refusal(.stateConflict("the call is already over", state: call.state), leg: index)
            }

        case .ringTimeout:
            return ringOut(at: now)

        case .connectionLost, .maximumDurationReached:
            guard actor == .system else {
                throw CallRuleError.wrongParty(
                    "only the server ends a call it lost or that lasted too long", state: call.state)
            }
            guard call.state == .accepted else { return [] }
            return endCall(
                by: nil, reason: input == .connectionLost ? .connectionLost : .maximumDuration, at: now)

        case .legConnectionLost(let user):
            guard actor == .system else {
                throw CallRuleError.wrongParty("only the server ends a leg it lost", state: call.state)
            }
            guard let index = legIndex(of: .user(user)), groupLegs[index].state == .accepted else { return [] }
            return leave(index, by: nil, at: now)

        case .ringMore(let more):
            return try ringMore(more, by: actor, at: now)
        }
    }

    /// A ringing leg answers: under `first_answer`, while the call rings, every other leg of the race stops.
    private mutating func accept(_ index: Int, device: String, at now: Date) -> [CallEffect] {
        let user = records[index].userID
        let wasRinging = call.state == .ringing
        groupLegs[index].state = .accepted
        groupLegs[index].acceptedAt = now
        groupLegs[index].acceptedDeviceID = device
        var effects: [CallEffect] = []
        var stopped: [Int] = []
        if wasRinging {
            call.state = .accepted
            call.acceptedAt = now
            call.acceptedDeviceID = device
            effects.append(.watchAcceptedCall(acceptedAt: now))
            if records[index].exclusive {
                for other in groupLegs.indices
                where other != index && groupLegs[other].state == .ringing && records[other].exclusive {
                    groupLegs[other].state = .cancelled
                    groupLegs[other].endedAt = now
                    groupLegs[other].endedBy = user
                    stopped.append(other)
                }
            }
        }
        effects += [.watchLeg(userID: user, acceptedAt: now), ringTimer()]
        effects.append(.publish(wasRinging ? .callAccepted : .callUpdated, to: .user(call.caller.id)))
        let others = EventRecipient.userExceptDevice(user, deviceID: device)
        effects += [.publish(.callAnsweredElsewhere, to: others), .pushUpdate(.callAnsweredElsewhere, to: others)]
        for other in stopped {
            let recipient = EventRecipient.user(records[other].userID)
            effects += [
                .publish(.callAnsweredElsewhere, to: recipient), .pushUpdate(.callAnsweredElsewhere, to: recipient),
            ]
        }
        return effects + updates(exceptLegs: [index])
    }

    /// A ringing leg declines; the call ends when it was ringing and no leg is left live.
    private mutating func decline(_ index: Int, device: String, at now: Date) -> [CallEffect] {
        let user = records[index].userID
        groupLegs[index].state = .declined
        groupLegs[index].endedAt = now
        groupLegs[index].endedBy = user
        records[index].declinedDeviceID = device
        let others = EventRecipient.userExceptDevice(user, deviceID: device)
        var effects: [CallEffect] = [
            ringTimer(), .publish(.callDeclinedElsewhere, to: others), .pushUpdate(.callDeclinedElsewhere, to: others),
        ]
        effects.append(.publish(settleIfNobodyRings(lastDecliner: user, at: now), to: .user(call.caller.id)))
        return effects + updates(exceptLegs: [index])
    }

    /// Every ringing leg past its own deadline ends `unanswered`, and its callee gets a missed-call alert.
    private mutating func ringOut(at now: Date) -> [CallEffect] {
        let due = groupLegs.indices.filter { groupLegs[$0].state == .ringing && now >= groupLegs[$0].expiresAt }
        guard !due.isEmpty else { return [] }
        var effects: [CallEffect] = []
        for index in due {
            groupLegs[index].state = .unanswered
            groupLegs[index].endedAt = now
            let recipient = EventRecipient.user(records[index].userID)
            effects += [.publish(.callUnanswered, to: recipient), .pushUpdate(.callUnanswered, to: recipient)]
        }
        effects.append(.publish(settleIfNobodyRings(lastDecliner: nil, at: now), to: .user(call.caller.id)))
        effects += updates(exceptLegs: Set(due))
        if let next = earliestRingingDeadline { effects.append(.scheduleRingTimeout(at: next)) }
        return effects
    }

    /// A callee in the call leaves (hangs up, or their app went silent: `by` nil); the call ends with them when no
    /// other callee is left in it.
    private mutating func leave(_ index: Int, by user: String?, at now: Date) -> [CallEffect] {
        let leaver = records[index].userID
        groupLegs[index].state = .left
        groupLegs[index].endedAt = now
        groupLegs[index].endedBy = user
        var effects: [CallEffect] = [.stopWatchingLeg(userID: leaver), .publish(.callEnded, to: .user(leaver))]
        if !groupLegs.contains(where: { $0.state == .accepted }) {
            return effects + endCall(by: user, reason: user == nil ? .connectionLost : nil, at: now)
        }
        effects.append(.publish(.callUpdated, to: .user(call.caller.id)))
        return effects + updates(exceptLegs: [index])
    }

    /// Ends an accepted call for everyone: callees in it leave, ringing legs stop.
    private mutating func endCall(by user: String?, reason: SystemEndReason?, at now: Date) -> [CallEffect] {
        finishCall(.ended, by: user, at: now)
        call.endReason = reason
        var effects: [CallEffect] = [.stopWatchingCall]
        var rang = false
        for index in groupLegs.indices {
            switch groupLegs[index].state {
            case .accepted:
                groupLegs[index].state = .left
                groupLegs[index].endedAt = now
                groupLegs[index].endedBy = user
                let callee = records[index].userID
                effects += [.stopWatchingLeg(userID: callee), .publish(.callEnded, to: .user(callee))]
            case .ringing:
                rang = true
                // Not the caller's cancel: the call is over for someone who never joined it.
                effects += stopRinging(index, by: user == call.caller.id ? user : nil, at: now)
            default:
                break
            }
        }
        if rang { effects.append(.cancelRingTimeout) }
        effects.append(.publish(.callEnded, to: .user(call.caller.id)))
        return effects
    }

    /// A ringing group call's end before any answer, by its caller or the app's backend: every ringing leg stops. The
    /// backend's cancel names nobody as `ended_by`, and the caller hears it too (their app did not do it).
    private mutating func cancelGroup(by actor: CallActor, at now: Date) -> [CallEffect] {
        let caller = call.caller.id
        let user = actor == .backend ? nil : caller
        finishCall(.cancelled, by: user, at: now)
        var effects: [CallEffect] = [.cancelRingTimeout]
        for index in groupLegs.indices where groupLegs[index].state == .ringing {
            effects += stopRinging(index, by: user, at: now)
        }
        if actor == .backend { effects.append(.publish(.callCancelled, to: .user(caller))) }
        return effects
    }

    /// A ringing leg stops because of the caller or the call's end: `call.cancelled` and a stop push.
    private mutating func stopRinging(_ index: Int, by user: String?, at now: Date) -> [CallEffect] {
        groupLegs[index].state = .cancelled
        groupLegs[index].endedAt = now
        groupLegs[index].endedBy = user
        let recipient = EventRecipient.user(records[index].userID)
        return [.publish(.callCancelled, to: recipient), .pushUpdate(.callCancelled, to: recipient)]
    }

    /// Rings more people into a live call (decision 0007 §7): the caller or a callee in the call may; a callee whose
    /// leg is live is left alone (a retry rings nobody twice), one whose leg ended refuses the whole request.
    private mutating func ringMore(_ more: RingMore, by actor: CallActor, at now: Date) throws -> [CallEffect] {
        guard case .user(let user) = actor else {
            throw CallRuleError.wrongParty("only a participant rings more people", state: call.state)
        }
        if user != call.caller.id, let index = legIndex(of: actor), groupLegs[index].state != .accepted {
            throw refusal(
                .wrongParty("only the caller or a callee in the call rings more people", state: call.state),
                leg: index)
        }
        guard call.state.isLive else {
            throw CallRuleError.stateConflict("the call is already over", state: call.state)
        }
        var fresh: [Invitee] = []
        var over: [String] = []
        for invitee in more.invitees where invitee.party.id != call.caller.id {
            let id = invitee.party.id
            if let index = legIndex(of: .user(id)) {
                if !groupLegs[index].state.isLive { over.append(id) }
            } else if !fresh.contains(where: { $0.party.id == id }) {
                fresh.append(invitee)
            }
        }
        guard over.isEmpty else {
            let error = CallRuleError.calleeAlreadyRung(over, state: call.state)
            throw legIndex(of: actor).map { refusal(error, leg: $0) } ?? error
        }
        guard !fresh.isEmpty else { return [] }
        guard groupLegs.count + fresh.count <= more.maximumLegs else {
            throw CallRuleError.tooManyCallees(limit: more.maximumLegs, state: call.state)
        }
        let exclusive = call.state == .ringing && call.answerPolicy != .allMayJoin
        let before = groupLegs.count
        var effects: [CallEffect] = []
        for invitee in fresh {
            effects += addLeg(invitee, now: now, ringTimeout: more.ringTimeout, exclusive: exclusive)
        }
        call.expiresAt = groupLegs.map(\.expiresAt).max() ?? call.expiresAt
        if let next = earliestRingingDeadline { effects.append(.scheduleRingTimeout(at: next)) }
        effects.append(.publish(.callUpdated, to: .user(call.caller.id)))
        return effects + updates(exceptLegs: Set(before..<groupLegs.count))
    }

    /// Adds a leg for `invitee`: `busy` when in an accepted call (unless the call rings them waiting), `failed` when
    /// nothing of theirs can ring, else `ringing` with its own deadline, `call.incoming` and a ringing push per device
    /// that can be woken; a leg rung while its callee is in another answered call is marked waiting.
    private mutating func addLeg(
        _ invitee: Invitee, now: Date, ringTimeout: TimeInterval, exclusive: Bool
    ) -> [CallEffect] {
        let id = invitee.party.id
        var leg = CallLeg(
            user: invitee.party, state: .ringing, rungAt: now, expiresAt: now.addingTimeInterval(ringTimeout))
        let wakeable = invitee.devices.filter(\.canBeWoken)
        var effects: [CallEffect] = []
        if invitee.busy && callWaiting != true {
            leg.state = .busy
            leg.endedAt = now
        } else if wakeable.isEmpty && !invitee.online {
            leg.state = .failed
            leg.endedAt = now
            leg.failureReason = "\(id) cannot be reached"
        } else {
            if invitee.busy { leg.waiting = true }
            effects.append(.publish(.callIncoming, to: .user(id)))
            effects += wakeable.map { .pushLegIncoming(userID: id, deviceID: $0.id) }
        }
        groupLegs.append(leg)
        records.append(
            LegRecord(
                userID: id, calleeDevices: invitee.devices, ringingDeviceIDs: [], declinedDeviceID: nil,
                exclusive: exclusive))
        return effects
    }

    /// While the call rings and no leg is live any more, it ends: `declined` when every leg declined (ended by the
    /// last to decline), else `unanswered`.
    /// - Returns: the event the caller gets: `call.declined` or `call.unanswered` when it ended, else `call.updated`.
    private mutating func settleIfNobodyRings(lastDecliner: String?, at now: Date) -> EventType {
        guard call.state == .ringing, !groupLegs.contains(where: { $0.state.isLive }) else { return .callUpdated }
        if groupLegs.allSatisfy({ $0.state == .declined }) {
            finishCall(.declined, by: lastDecliner, at: now)
            return .callDeclined
        }
        finishCall(.unanswered, by: nil, at: now)
        return .callUnanswered
    }

    /// Turns a live 1:1 call into a `first_answer` group call of one leg, before a ring-more at `now`.
    ///
    /// A callee whose phone already acknowledged ringing gets `ringing_at` = `now` (the answer's time if it was
    /// answered): a 1:1 call keeps which devices rang, not when, and a leg without it would make the next
    /// acknowledgement the call's "first" ring (a second `call.ringing` to the caller, found by review).
    mutating func becomeGroup(at now: Date) {
        let ringing = call.state == .ringing
        var leg = CallLeg(
            user: call.callee, state: ringing ? .ringing : .accepted, rungAt: call.createdAt,
            expiresAt: call.expiresAt, ringingAt: ringingDeviceIDs.isEmpty ? nil : call.acceptedAt ?? now,
            acceptedAt: call.acceptedAt,
            acceptedDeviceID: call.acceptedDeviceID)
        // The first callee's waiting call stays one; the call itself no longer says it (each callee reads their leg).
        leg.waiting = call.waiting
        call.waiting = nil
        legs = [
            LegRecord(
                userID: call.callee.id, calleeDevices: calleeDevices, ringingDeviceIDs: ringingDeviceIDs,
                declinedDeviceID: nil, exclusive: ringing)
        ]
        call.legs = [leg]
        call.answerPolicy = .firstAnswer
        calleeDevices = []
        ringingDeviceIDs = []
    }

    // MARK: Helpers

    /// ``Call/legs``, never nil inside a group call's rules.
    private var groupLegs: [CallLeg] {
        get { call.legs ?? [] }
        set { call.legs = newValue }
    }

    /// ``legs``, never nil inside a group call's rules.
    private var records: [LegRecord] {
        get { legs ?? [] }
        set { legs = newValue }
    }

    /// The deadline of the leg that rings out first, or nil when none rings.
    private var earliestRingingDeadline: Date? {
        groupLegs.filter { $0.state == .ringing }.map(\.expiresAt).min()
    }

    /// The ring timer for the legs still ringing: the earliest deadline, or none.
    private func ringTimer() -> CallEffect {
        earliestRingingDeadline.map { .scheduleRingTimeout(at: $0) } ?? .cancelRingTimeout
    }

    /// `call.updated` to every callee whose leg is live, except the legs named (who got their own event).
    private func updates(exceptLegs skipped: Set<Int>) -> [CallEffect] {
        groupLegs.indices.filter { !skipped.contains($0) && groupLegs[$0].state.isLive }
            .map { .publish(.callUpdated, to: .user(records[$0].userID)) }
    }

    /// Whether a `cancelled` leg was stopped by another callee's answer (the `first_answer` race) rather than by the
    /// caller or the call's end.
    private func isAnsweredByAnotherCallee(_ leg: CallLeg) -> Bool {
        guard leg.state == .cancelled, let by = leg.endedBy else { return false }
        return by != call.caller.id && by != leg.user.id
    }

    private func legIndex(of actor: CallActor) -> Int? {
        guard case .user(let user) = actor else { return nil }
        return records.firstIndex { $0.userID == user }
    }

    /// The acting callee's leg.
    /// - Throws: ``CallRuleError/wrongParty(_:state:)`` for the caller or the system.
    private func requireLeg(_ actor: CallActor, _ detail: String) throws -> Int {
        guard let index = legIndex(of: actor) else { throw CallRuleError.wrongParty(detail, state: call.state) }
        return index
    }

    /// `error` as the callee of leg `index` meets it: the call's state as they read it, and their leg's.
    private func refusal(_ error: CallRuleError, leg index: Int) -> CallRuleError {
        error.reading(as: view(for: records[index].userID).state, legState: groupLegs[index].state)
    }

    private mutating func finishCall(_ state: CallState, by user: String?, at now: Date) {
        call.state = state
        call.endedAt = now
        call.endedBy = user
    }
}
