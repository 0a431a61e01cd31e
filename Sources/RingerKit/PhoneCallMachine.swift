public import Foundation
public import RingerWire

/// The life of a device's calls as a pure value, the phone's counterpart of RingerCore's `CallMachine`: every
/// input returns the effects its owner (``CallCoordinator``) must carry out, in order. No I/O, no clock of its
/// own: the phone's time comes in with each input. The same behaviour is written down as language-neutral
/// test vectors (TestVectors/phone-call, docs/test-vectors.md) that every implementation must pass.
///
/// Rules it holds:
/// - **Phases**: an incoming call goes ringing → answering (the user answered, the server has not confirmed)
///   → active → ended; an outgoing one ringing → active → ended. Ended is final.
/// - **A local end** declines a ringing or answering incoming call, cancels a ringing outgoing one and ends an
///   active one.
/// - **Remote endings** close the call exactly once, with the `CXCallEndedReason`-style ``CallEndReason`` the
///   server's news maps to.
/// - **Ended before seen**: an end (`call.cancelled`, `call.answered_elsewhere`, `call.declined_elsewhere`,
///   `call.unanswered`, `call.ended`) for a call the device does not know is remembered (at most
///   ``endedUnseenLimit`` calls, for ``endedUnseenLifetime`` seconds), so the call's late push is reported
///   and ended at once with that reason instead of ringing.
/// - **An answer is never dropped**: once the user answered, the accept is sent until the server answers it
///   (``PhoneCallEffect/sendAccept(callID:)``); a transport failure is no refusal. The unconfirmed answer is part
///   of ``memory``, so a new process sends it again (``PhoneCallInput/launched``). Only the ring deadline ends
///   it, as ``CallEndReason/answerNotDelivered``, and with a decline in case the accept did land (the server then
///   ends the call instead of keeping it accepted with nobody on this end); an answer given after the ring
///   deadline on the server's timeline ends `unanswered` instead, undeclined: the server refuses it.
/// - **Ended stays ended**: a call that ended here, or whose end came first, is never forgotten as if it had
///   never rung, within the same bounds as ends heard first, across processes too (``memory``). A call still up
///   when the app's process dies ended with it (the system closes a dead app's native calls): the next process
///   never rings it again, and reports a late push for it under a new id (one native call per call id).
/// - **Staleness on the server's timeline**: a push is judged past its deadline only by the server's clock,
///   read through the offset learned from the server (``clockOffset``); while no offset is known the push
///   rings, and the server's answer to the ringing acknowledgement ends a call that is over (APNs'
///   `apns-expiration` and FCM's `ttl` drop truly late pushes upstream).
/// - **A call among other calls**: an active call may be held and resumed, and any call not over muted, by the
///   system or at the app's request, which goes through the system (docs/decisions/0008); keypad tones (DTMF) are
///   played only on the call that has the audio, the same two ways. One call has the audio:
///   resuming a call, answering one or placing one holds every other active call first. Ending a call resumes
///   nothing (Apple leaves a held call held when the other ends, so nobody is overheard). A held call is still
///   active: it is kept alive and ends as any answered call.
public struct PhoneCallMachine: Hashable, Sendable {
    /// Who placed the call.
    public enum Direction: String, Hashable, Sendable {
        /// Another user called this device's user.
        case incoming
        /// This device placed the call.
        case outgoing
    }

    /// Where a call is on this device.
    public enum Phase: String, Hashable, Sendable {
        /// On screen, not answered yet.
        case ringing
        /// The user answered; the server has not confirmed yet (or the app is still launching).
        case answering
        /// Answered and confirmed.
        case active
        /// Over here; final.
        case ended
    }

    /// One call the device knows.
    public struct PhoneCall: Hashable, Sendable {
        /// The native call UI's id (the call id).
        public var uuid: UUID
        /// The user an incoming call is for, when the push or event said; the callee of an outgoing call.
        public var calleeID: String?
        /// Who placed it.
        public var direction: Direction
        /// Where it is.
        public var phase: Phase
        /// The ring deadline on the server's clock.
        public var expiresAt: Date
        /// The ring deadline on the phone's clock, as well as the device can tell it.
        public var localDeadline: Date
        /// True while a native answer action waits for the server.
        public var answerPending: Bool
        /// Why it ended remotely; nil while it is up or when the local user ended it.
        public var endReason: CallEndReason?
        /// Who placed an incoming call (nil for outgoing calls), for reporting it again after a relaunch.
        public var caller: Party? = nil
        /// Whether the call offers video.
        public var hasVideo = false
        /// When it ended here, phone clock; nil while it is up.
        public var endedAt: Date? = nil
        /// True once the call UI took the call's report (``PhoneCallInput/reportFinished(callID:accepted:)``):
        /// reports of an answer wait for it, or they would find nothing on screen.
        public var shown = false
        /// True once the device's own deadline timer was armed for the call.
        public var deadlineArmed = false
        /// True when the user answered after the ring deadline on the server's timeline, as far as the device knew
        /// it then: the server refuses every answer after its deadline, so such an answer, never confirmed, ends
        /// the call `unanswered` at the device's deadline, not `answer_not_delivered`.
        public var answeredLate = false
        /// For a group call: the count rung and some of the others, as the call UI shows it.
        public var group: VoIPPush.Group? = nil
        /// For a group call: its legs as last heard (an event or a read); nil until then, and for a 1:1 call.
        public var legs: [CallLeg]? = nil
        /// True when the call rang while this user was in another call (the server's `waiting`, from the push or the
        /// event): the app may show it as a second call. Not kept across processes.
        public var waiting = false
        /// True while the system holds the active call (its media paused); only an active call is held.
        public var held = false
        /// True while the call's microphone is muted, as the system last said.
        public var muted = false
    }

    /// A call that ended before the device saw it, or that was on this device's screen in an earlier process
    /// (it ended there, or was still up when that process died: the system closes a dead app's native calls).
    public struct EndedUnseen: Codable, Hashable, Sendable {
        /// How it ended, as this device would show it.
        public var reason: CallEndReason
        /// When the device learned it, phone clock; for a call still up when its process died, its ring deadline.
        public var learnedAt: Date
        /// True when the call was on this device's screen in an earlier process: its id was shown once already, so a
        /// late push is reported under a new id (one native call per call id, as for a call ended in this process).
        public var shownHere: Bool

        /// Creates an entry.
        public init(reason: CallEndReason, learnedAt: Date, shownHere: Bool = false) {
            self.reason = reason
            self.learnedAt = learnedAt
            self.shownHere = shownHere
        }

        private enum CodingKeys: String, CodingKey { case reason, learnedAt, shownHere }

        /// Decodes an entry; one stored by a version without `shownHere` reads as an end heard first.
        /// - Throws: `DecodingError` when `reason` or `learnedAt` is missing or malformed.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            reason = try container.decode(CallEndReason.self, forKey: .reason)
            learnedAt = try container.decode(Date.self, forKey: .learnedAt)
            shownHere = try container.decodeIfPresent(Bool.self, forKey: .shownHere) ?? false
        }
    }

    /// An answer the user gave that the server has not confirmed: enough to show the call again and send the
    /// answer from a new process.
    public struct UnconfirmedAnswer: Codable, Hashable, Sendable {
        /// Who is calling.
        public var caller: Party
        /// The user the call is for, when known.
        public var calleeID: String?
        /// Whether the call offers video.
        public var hasVideo: Bool
        /// The ring deadline on the server's clock.
        public var expiresAt: Date
        /// The ring deadline on the phone's clock.
        public var localDeadline: Date
        /// For a group call, what the call UI showed of the group; absent from entries stored before group calls.
        public var group: VoIPPush.Group?

        /// Creates an entry.
        public init(
            caller: Party, calleeID: String?, hasVideo: Bool, expiresAt: Date, localDeadline: Date,
            group: VoIPPush.Group? = nil
        ) {
            self.caller = caller
            self.calleeID = calleeID
            self.hasVideo = hasVideo
            self.expiresAt = expiresAt
            self.localDeadline = localDeadline
            self.group = group
        }
    }

    /// What the machine must find again in the app's next process: the ends it knows (a late push or a
    /// redelivered FCM message for one of them is reported and ended, never rung) and the answers not yet
    /// confirmed. The owner persists it whenever it changes, before carrying out the input's effects
    /// (``CallMemoryStore``), and builds the next process's machine from it.
    public struct Memory: Codable, Hashable, Sendable {
        /// Calls over, by lowercase call id: at most ``PhoneCallMachine/endedUnseenLimit``, the newest.
        public var endedCalls: [String: EndedUnseen]
        /// Answers the server has not confirmed, by lowercase call id.
        public var unconfirmedAnswers: [String: UnconfirmedAnswer]

        /// Creates a memory.
        public init(endedCalls: [String: EndedUnseen] = [:], unconfirmedAnswers: [String: UnconfirmedAnswer] = [:]) {
            self.endedCalls = endedCalls
            self.unconfirmedAnswers = unconfirmedAnswers
        }
    }

    /// Seconds past a call's deadline before the device ends it on its own, if the server's
    /// `call.unanswered` has not arrived by then.
    public static let deadlineGrace: TimeInterval = 2
    /// How many ended-before-seen calls are remembered; the oldest go first.
    public static let endedUnseenLimit = 64
    /// Seconds an ended-before-seen call is remembered: well past the longest ring time, after which
    /// `apns-expiration` and FCM's `ttl` have dropped the call's push anyway.
    public static let endedUnseenLifetime: TimeInterval = 600
    /// Seconds two clock samples may differ and still count as the same clock (then the larger wins, being
    /// the one delayed least on the way); a larger difference means the phone's clock was changed. Two seconds
    /// cover an HTTP `Date` header's whole-second reading plus a slow answer.
    public static let clockSampleTolerance: TimeInterval = 2

    /// This device's id (`accepted_device_id` tells whether this device answered).
    public let deviceID: String
    /// The calls the device knows, by lowercase call id.
    public private(set) var calls: [String: PhoneCall] = [:]
    /// Calls that ended before the device saw them, by lowercase call id.
    public private(set) var endedUnseen: [String: EndedUnseen] = [:]
    /// This device's outgoing calls the callee answered before `POST /v1/calls` answered (`call.accepted` came
    /// first on the socket), by lowercase call id, with when the device heard it (phone clock). Same bounds as
    /// ``endedUnseen``.
    public private(set) var answeredUnseen: [String: Date] = [:]
    /// The server's clock minus the phone's, seconds; nil until learned. One-way samples (the server's time
    /// when it sent, the phone's when it read) undershoot by the network delay.
    public private(set) var clockOffset: TimeInterval?

    /// Answers kept from the previous process, waiting for ``PhoneCallInput/launched``.
    private var answersToRestore: [String: UnconfirmedAnswer] = [:]

    /// Creates the machine with no calls.
    /// - Parameters:
    ///   - deviceID: this device's id.
    ///   - clockOffset: the server-minus-phone offset kept from an earlier launch, seconds; nil if none.
    ///   - memory: what the previous process kept (``memory``); its ends are remembered as ends heard first, and
    ///     its unconfirmed answers are taken up by ``PhoneCallInput/launched``.
    public init(deviceID: String, clockOffset: TimeInterval? = nil, memory: Memory = Memory()) {
        self.deviceID = deviceID
        self.clockOffset = clockOffset
        endedUnseen = memory.endedCalls
        Self.keepNewest(in: &endedUnseen, learnedAt: \.learnedAt)
        answersToRestore = memory.unconfirmedAnswers
    }

    /// What the next process must know (``Memory``): the ends heard first and the calls ended here, newest
    /// ``endedUnseenLimit``, and the answers still unconfirmed (including those a ``PhoneCallInput/launched`` has
    /// not taken up yet).
    public var memory: Memory {
        var ended = endedUnseen
        for (callID, call) in calls where call.phase != .answering {
            // A call still up when the process dies dies with it (CallKit and Telecom close a dead app's calls), so
            // it is kept as over, lest a late push ring it a second time.
            ended[callID] =
                call.phase == .ended
                ? EndedUnseen(
                    reason: call.endReason ?? .remoteEnded, learnedAt: call.endedAt ?? .distantPast, shownHere: true)
                : EndedUnseen(reason: .failed, learnedAt: call.localDeadline, shownHere: true)
        }
        Self.keepNewest(in: &ended, learnedAt: \.learnedAt)
        var answers = answersToRestore
        for (callID, call) in calls where call.phase == .answering {
            answers[callID] = UnconfirmedAnswer(
                caller: call.caller ?? Party(id: "unknown"), calleeID: call.calleeID,
                hasVideo: call.hasVideo, expiresAt: call.expiresAt,
                localDeadline: call.localDeadline, group: call.group)
        }
        return Memory(endedCalls: ended, unconfirmedAnswers: answers)
    }

    /// The phase of a call, nil when unknown.
    public func phase(of callID: String) -> Phase? { calls[callID]?.phase }

    /// The ids of calls not ended yet.
    public var liveCallIDs: [String] { calls.filter { $0.value.phase != .ended }.map(\.key).sorted() }

    /// Applies an input.
    /// - Parameters:
    ///   - input: what happened.
    ///   - now: the phone's clock when it happened.
    /// - Returns: the effects to carry out, in order; possibly none.
    public mutating func handle(_ input: PhoneCallInput, at now: Date) -> [PhoneCallEffect] {
        forgetOldEndedUnseen(now: now)
        switch input {
        case .incomingPush(let push, let account, let reportsEveryPush):
            return incomingPush(push, account: account, reportsEveryPush: reportsEveryPush, now: now)
        case .unreadablePush(let reportsEveryPush):
            let report: [PhoneCallEffect] =
                reportsEveryPush
                ? [.reportAndEnd(id: nil, caller: Party(id: "unknown"), reason: .failed)] : []
            return report + [.pushHandled(callID: nil, .unreadable)]
        case .incomingEvent(let call):
            return incomingEvent(call, now: now)
        case .reportFinished(let callID, let accepted):
            guard let call = calls[callID] else { return [] }
            switch (call.phase, accepted) {
            case (.ringing, true):
                calls[callID]?.shown = true
                calls[callID]?.deadlineArmed = true
                return [
                    .ringing(callID: callID), .armDeadline(callID: callID, at: call.localDeadline + Self.deadlineGrace),
                    .sendRinging(callID: callID),
                ]
            case (.answering, true):
                // Answered before the UI had the call (the app's own screen, or an answer restored after a relaunch):
                // the UI shows it answering now, and the deadline that ends an undelivered answer is armed if the
                // restore did not arm it.
                calls[callID]?.shown = true
                calls[callID]?.deadlineArmed = true
                return [.reportAnswering(id: call.uuid)]
                    + (call.deadlineArmed
                        ? [] : [.armDeadline(callID: callID, at: call.localDeadline + Self.deadlineGrace)])
            case (.active, true):
                // Confirmed before the UI had the call: the answer it could not show then is shown now.
                calls[callID]?.shown = true
                return call.shown || call.direction != .incoming ? [] : [.reportAnswered(id: call.uuid)]
            case (.ringing, false):
                // The system refused to ring (Do Not Disturb, a blocked caller): forget it so a later push can ring.
                calls[callID] = nil
                return []
            case (.answering, false):
                // An answer restored after a relaunch that the system will not show: the user cannot see the
                // call, so it is declined rather than connected to nobody.
                return endLocally(callID, now: now)
            default:
                // Ended while the UI was still taking the report (a cancel before Telecom created the connection):
                // it stays ended, so a redelivered push never rings it again.
                return []
            }
        case .event(let type, let call):
            return participants(of: call) + event(type, call, now: now)
        case .updatePush(let type, let callID):
            guard let reason = Self.updateEndReason(type) else { return [] }
            return endRemotely(callID, reason: reason, rememberIfUnknown: true, now: now)
        case .answer(let callID):
            guard var call = calls[callID], call.direction == .incoming else { return [] }
            switch call.phase {
            case .ringing:
                call.phase = .answering
                call.answerPending = true
                // Sent all the same: the clock offset is an estimate, and only the server knows its deadline.
                call.answeredLate = isPast(call.expiresAt, now: now)
                calls[callID] = call
                // The native UI stops ringing at the tap, however the user answered; a UI still taking the report
                // is told when it finishes. The call being answered takes the audio from any other.
                return holdOthers(than: callID) + (call.shown ? [.reportAnswering(id: call.uuid)] : [])
                    + [.sendAccept(callID: callID)]
            case .answering:
                // A second way of answering (the native UI after the app's own screen, or a restored answer): the
                // accept is already on its way; this native action waits for it too.
                call.answerPending = true
                calls[callID] = call
                return []
            case .active:
                // The native UI catching up with an answer the server confirmed (iOS: the `CXAnswerCallAction`
                // requested by `report_answered`).
                return [.completeAnswer(callID: callID, fulfilled: true)]
            case .ended:
                return []
            }
        case .answerConfirmed(let callID):
            guard var call = calls[callID], call.phase == .answering else { return [] }
            let answerPending = call.answerPending
            call.phase = .active
            call.answerPending = false
            calls[callID] = call
            return (answerPending ? [.completeAnswer(callID: callID, fulfilled: true)] : [])
                + (call.shown ? [.reportAnswered(id: call.uuid)] : [])
                + [.startKeepalive(callID: callID), .answered(callID: callID)]
        case .answerRefused(let callID, let problem):
            // The answer lost to whatever ended the call first: say which, as the matching event would have. A
            // refusal that names no call state (an expired token, an unknown call) means the call failed here.
            let reason: CallEndReason =
                problem.type == ProblemType.answeredElsewhere.rawValue
                ? .answeredElsewhere
                : problem.callState.map(Self.endReason(forFinal:)) ?? .failed
            return endRemotely(callID, reason: reason, now: now)
        case .ringingRefused(let callID, let problem):
            // `ended` means another device answered and the call is over since: this one is only now ringing.
            let reason =
                problem.callState == .ended
                ? .answeredElsewhere
                : problem.callState.map(Self.endReason(forFinal:)) ?? .failed
            return endRemotely(callID, reason: reason, now: now)
        case .hangUpRefused(let callID, let kind, let problem):
            return Self.hangUpAfterRefusal(callID: callID, kind, problem: problem)
        case .end(let callID):
            return endLocally(callID, now: now)
        case .endAll:
            return liveCallIDs.flatMap { endLocally($0, now: now) }
        case .outgoingPlaced(let call):
            guard call.state == .ringing, let uuid = UUID(uuidString: call.callID) else { return [] }
            // The callee and video are kept so that the app can name the call before placing it returned.
            calls[call.callID] = PhoneCall(
                uuid: uuid, calleeID: call.callee.id, direction: .outgoing, phase: .ringing,
                expiresAt: call.expiresAt, localDeadline: call.expiresAt - (clockOffset ?? 0), answerPending: false,
                hasVideo: call.hasVideo)
            // The call being placed takes the audio from any other.
            let placed = holdOthers(than: call.callID) + participants(of: call)
            // The socket can outrun the POST's answer (a retried POST, a slow network): what it already said holds.
            if let ended = endedUnseen.removeValue(forKey: call.callID) {
                answeredUnseen[call.callID] = nil
                return placed + endRemotely(call.callID, reason: ended.reason, now: now)
            }
            if answeredUnseen.removeValue(forKey: call.callID) != nil { return placed + outgoingAnswered(call.callID) }
            return placed
        case .callRead(let call):
            var effects = participants(of: call)
            // A caller whose app missed `call.accepted` (no resume point yet) learns of the answer here.
            if call.state == .accepted, calls[call.callID]?.direction == .outgoing {
                effects += outgoingAnswered(call.callID)
            }
            guard let reason = reasonIfOver(call) else { return effects }
            return effects + endRemotely(call.callID, reason: reason, now: now)
        case .keepaliveRefused(let callID, let call):
            return endRemotely(callID, reason: call.flatMap(reasonIfOver) ?? .failed, now: now)
        case .deadlineReached(let callID):
            switch calls[callID]?.phase {
            case .ringing?:
                return endRemotely(callID, reason: .unanswered, now: now)
            case .answering? where calls[callID]?.answeredLate == true:
                // Answered after the server's deadline: the server cannot have taken it (a passed deadline wins over
                // any input there), so the call rang out, and there is nothing to decline.
                return endRemotely(callID, reason: .unanswered, now: now)
            case .answering?:
                // The answer never reached the server in time. The decline ends the call on the server if the
                // accept landed after all (its answer lost), instead of leaving the caller talking to nobody.
                return endRemotely(callID, reason: .answerNotDelivered, now: now) + [
                    .sendHangUp(callID: callID, .decline)
                ]
            default:
                return []
            }
        case .accountChanged(let account):
            let stale = calls.filter { _, call in
                call.direction == .incoming && (call.phase == .ringing || call.phase == .answering)
                    && Self.refuses(account, calleeID: call.calleeID)
            }
            // An answer that may have landed is declined too, as at a deadline (sent if this user logs in again).
            return stale.keys.sorted().flatMap { callID in
                endRemotely(callID, reason: .failed, now: now)
                    + (stale[callID]?.phase == .answering ? [.sendHangUp(callID: callID, .decline)] : [])
            }
        case .serverTime(let serverTime):
            return learnClock(sample: serverTime.timeIntervalSince(now))
        case .phoneClockChanged:
            clockOffset = nil
            return []
        case .launched:
            return restoreAnswers(now: now)
        case .setHeld(let callID, let held, let source):
            return setHeld(callID, held, by: source)
        case .setMuted(let callID, let muted, let source):
            return setMuted(callID, muted, by: source)
        case .playDTMF(let callID, let digits, let source):
            guard mayPlayDTMF(callID, digits) else { return [] }
            return [
                source == .app ? .requestDTMF(callID: callID, digits: digits) : .dtmf(callID: callID, digits: digits)
            ]
        }
    }

    // MARK: Hold and mute

    /// True when the call may be held or resumed: only an active call (not ringing, not answering, not over) is.
    public func mayHold(_ callID: String) -> Bool { calls[callID]?.phase == .active }

    /// True when the call may be muted or unmuted: any call not over (an outgoing call may be muted while it dials).
    public func mayMute(_ callID: String) -> Bool { (calls[callID]?.phase ?? .ended) != .ended }

    /// The tones a call may play (RFC 4733 §3.2's events 0–15: the twelve keys of a phone's keypad and the four
    /// column keys `A`–`D`), which CallKit's `CXPlayDTMFCallAction` and Telecom's `onPlayDtmfTone` both carry.
    public static let dtmfDigits = Set("0123456789*#ABCD")

    /// True when `digits` (at least one of ``dtmfDigits``, at most 64) may be played on the call now: only the call
    /// that has the audio, active and not held, sends tones the other party can hear.
    public func mayPlayDTMF(_ callID: String, _ digits: String) -> Bool {
        mayHold(callID) && calls[callID]?.held == false && !digits.isEmpty && digits.count <= 64
            && digits.allSatisfy(Self.dtmfDigits.contains)
    }

    /// True when the call is in the state a ``PhoneCallInput/setHeld(callID:held:by:)`` from the system asked for:
    /// the native UI fulfils its action then (CallKit's `CXSetHeldCallAction`), and fails it otherwise (a call not
    /// active cannot be held, an unknown one neither).
    public func isHeld(_ callID: String, _ held: Bool) -> Bool { mayHold(callID) && calls[callID]?.held == held }

    /// True when the call is not over and in the mute state asked for (``isHeld(_:_:)``'s counterpart for
    /// `CXSetMutedCallAction`).
    public func isMuted(_ callID: String, _ muted: Bool) -> Bool { mayMute(callID) && calls[callID]?.muted == muted }

    /// Only a call ``mayHold(_:)`` is held, and one that is already so changes nothing. Resuming holds the others
    /// first, so two calls are never heard at once.
    private mutating func setHeld(_ callID: String, _ held: Bool, by source: ControlSource) -> [PhoneCallEffect] {
        guard mayHold(callID), calls[callID]?.held != held else { return [] }
        let others = held ? [] : holdOthers(than: callID)
        switch source {
        case .app:
            return others + [.requestHeld(callID: callID, held: held)]
        case .system:
            calls[callID]?.held = held
            return others + [.heldChanged(callID: callID, held: held)]
        }
    }

    /// A call on screen may be muted before it is answered (CallKit shows the button while an outgoing call dials), so
    /// any call ``mayMute(_:)`` takes it.
    private mutating func setMuted(_ callID: String, _ muted: Bool, by source: ControlSource) -> [PhoneCallEffect] {
        guard mayMute(callID), calls[callID]?.muted != muted else { return [] }
        switch source {
        case .app:
            return [.requestMuted(callID: callID, muted: muted)]
        case .system:
            calls[callID]?.muted = muted
            return [.mutedChanged(callID: callID, muted: muted)]
        }
    }

    /// Requests to hold every active call other than `callID` not held yet, by call id: the call about to have the
    /// audio takes it from them. The system's answers come back as inputs, so a hold the system made itself first
    /// ("Hold & Accept") leaves nothing to request.
    private func holdOthers(than callID: String) -> [PhoneCallEffect] {
        calls.filter { $0.key != callID && $0.value.phase == .active && !$0.value.held }.keys.sorted().map {
            .requestHeld(callID: $0, held: true)
        }
    }

    /// Takes up the answers the previous process kept: before its deadline an answer's call is shown again and
    /// its accept sent (once: one accept loop, as for a fresh answer); past it, the call is over as not
    /// delivered, with the same decline as at a deadline.
    private mutating func restoreAnswers(now: Date) -> [PhoneCallEffect] {
        let restored = answersToRestore
        answersToRestore = [:]
        return restored.keys.sorted().flatMap { callID -> [PhoneCallEffect] in
            guard let answer = restored[callID], calls[callID] == nil, let uuid = UUID(uuidString: callID) else {
                return []
            }
            var call = PhoneCall(
                uuid: uuid, calleeID: answer.calleeID, direction: .incoming, phase: .answering,
                expiresAt: answer.expiresAt, localDeadline: answer.localDeadline, answerPending: false,
                caller: answer.caller, hasVideo: answer.hasVideo, deadlineArmed: true, group: answer.group)
            let deadline = answer.localDeadline + Self.deadlineGrace
            guard now < deadline else {
                call.phase = .ended
                call.endReason = .answerNotDelivered
                call.endedAt = now
                calls[callID] = call
                return [.ended(callID: callID, reason: .answerNotDelivered), .sendHangUp(callID: callID, .decline)]
            }
            calls[callID] = call
            let report = IncomingCallReport(
                id: uuid, caller: answer.caller, hasVideo: answer.hasVideo, group: answer.group)
            return [
                .reportIncoming(callID: callID, report), .armDeadline(callID: callID, at: deadline),
                .sendAccept(callID: callID),
            ]
        }
    }

    // MARK: Incoming

    private mutating func incomingPush(
        _ push: IncomingPush, account: PhoneAccount, reportsEveryPush: Bool,
        now: Date
    ) -> [PhoneCallEffect] {
        let callID = push.callID
        let report = IncomingCallReport(id: push.uuid, caller: push.caller, hasVideo: push.hasVideo, group: push.group)
        let disposition: CallCoordinator.PushDisposition
        var effects: [PhoneCallEffect] = []
        if let known = calls[callID] {
            disposition = known.phase == .ended ? .alreadyEnded : .duplicate
            if reportsEveryPush {
                // Apple requires a report for every VoIP push; the extra report of a call already ended ends as
                // the call did here (a call this device's user ended has no remote reason to repeat).
                effects.append(
                    known.phase == .ended
                        ? .reportAndEnd(id: nil, caller: push.caller, reason: known.endReason ?? .remoteEnded)
                        : .reportDuplicate(report))
            }
        } else if let ended = endedUnseen.removeValue(forKey: callID) {
            // Its end came first, or it was on screen in an earlier process: reported and ended at once, under its
            // own id only if that id was never shown.
            calls[callID] = PhoneCall(
                uuid: push.uuid, calleeID: push.calleeID, direction: .incoming, phase: .ended,
                expiresAt: push.expiresAt, localDeadline: now, answerPending: false,
                endReason: ended.reason, caller: push.caller, hasVideo: push.hasVideo,
                endedAt: ended.learnedAt)
            disposition = .alreadyEnded
            if reportsEveryPush {
                effects.append(
                    .reportAndEnd(id: ended.shownHere ? nil : push.uuid, caller: push.caller, reason: ended.reason))
            }
        } else if isPast(push.expiresAt, now: now) {
            disposition = .expired
            if reportsEveryPush {
                effects.append(.reportAndEnd(id: push.uuid, caller: push.caller, reason: .unanswered))
            }
        } else if Self.refuses(account, calleeID: push.calleeID) {
            disposition = account == .loggedOut ? .loggedOut : .otherUser
            if reportsEveryPush { effects.append(.reportAndEnd(id: push.uuid, caller: push.caller, reason: .failed)) }
        } else {
            calls[callID] = PhoneCall(
                uuid: push.uuid, calleeID: push.calleeID, direction: .incoming, phase: .ringing,
                expiresAt: push.expiresAt,
                localDeadline: localDeadline(
                    push.expiresAt, window: push.expiresAt.timeIntervalSince(push.sentAt), now: now),
                answerPending: false, caller: push.caller, hasVideo: push.hasVideo, group: push.group)
            calls[callID]?.waiting = push.waiting
            disposition = .ringing
            effects.append(.reportIncoming(callID: callID, report))
        }
        return effects + [.pushHandled(callID: callID, disposition)]
    }

    private mutating func incomingEvent(_ call: Call, now: Date) -> [PhoneCallEffect] {
        let callID = call.callID
        guard let uuid = UUID(uuidString: callID), call.state == .ringing, calls[callID] == nil else { return [] }
        if let ended = endedUnseen.removeValue(forKey: callID) {
            // Known to be over: kept as ended so the call's push, if it still comes, is reported and ended.
            calls[callID] = PhoneCall(
                uuid: uuid, calleeID: call.callee.id, direction: .incoming, phase: .ended,
                expiresAt: call.expiresAt, localDeadline: now, answerPending: false,
                endReason: ended.reason, caller: call.caller, hasVideo: call.hasVideo,
                endedAt: ended.learnedAt)
            return []
        }
        guard !isPast(call.expiresAt, now: now) else { return [] }
        let group = Self.group(of: call)
        calls[callID] = PhoneCall(
            uuid: uuid, calleeID: call.callee.id, direction: .incoming, phase: .ringing,
            expiresAt: call.expiresAt,
            localDeadline: localDeadline(
                call.expiresAt, window: call.expiresAt.timeIntervalSince(call.createdAt), now: now),
            answerPending: false, caller: call.caller, hasVideo: call.hasVideo, group: group, legs: call.legs)
        calls[callID]?.waiting = call.waiting == true
        let report = IncomingCallReport(id: uuid, caller: call.caller, hasVideo: call.hasVideo, group: group)
        return [.reportIncoming(callID: callID, report)]
    }

    /// The group a call event shows, as its push would name it: every leg counted, the others (not the callee
    /// reading it) named in the order rung, at most ``VoIPPush/Body/maximumNamedOthers``; nil for a 1:1 call.
    static func group(of call: Call) -> VoIPPush.Group? {
        guard let legs = call.legs else { return nil }
        let others = legs.map(\.user).filter { $0.id != call.callee.id }
        return VoIPPush.Group(count: legs.count, others: Array(others.prefix(VoIPPush.Body.maximumNamedOthers)))
    }

    /// A group call's legs as an event or read tells them: noted, and observed when they changed, for a call this
    /// device knows and has not ended; never a change of phase.
    private mutating func participants(of call: Call) -> [PhoneCallEffect] {
        guard let legs = call.legs, var known = calls[call.callID], known.phase != .ended, known.legs != legs else {
            return []
        }
        known.legs = legs
        calls[call.callID] = known
        return [.participantsChanged(callID: call.callID, legs: legs)]
    }

    /// True when `deadline` (server clock) has passed on the server's timeline as far as the device knows it;
    /// false whenever the offset is unknown (ringing is preferred then).
    private func isPast(_ deadline: Date, now: Date) -> Bool {
        guard let clockOffset else { return false }
        return deadline <= now + clockOffset
    }

    /// The phone-clock time of a server-clock deadline: exact up to the offset's error when it is known; else
    /// at most the ring window from now (the push may have been in flight, so it never rings past its window).
    private func localDeadline(_ deadline: Date, window: TimeInterval, now: Date) -> Date {
        if let clockOffset { return deadline - clockOffset }
        return now + max(0, window)
    }

    private static func refuses(_ account: PhoneAccount, calleeID: String?) -> Bool {
        switch account {
        case .launching: false
        case .loggedOut: true
        case .loggedIn(let userID): calleeID != nil && userID != nil && calleeID != userID
        }
    }

    // MARK: Events

    private mutating func event(_ type: EventType, _ call: Call, now: Date) -> [PhoneCallEffect] {
        let callID = call.callID
        switch type {
        case .callIncoming:
            return incomingEvent(call, now: now)
        case .callAccepted:
            guard calls[callID] != nil else {
                rememberAnswered(callID, now: now)
                return []
            }
            return outgoingAnswered(callID)
        case .callDeclined:
            return endRemotely(callID, reason: .remoteEnded, rememberIfUnknown: true, now: now)
        case .callEnded:
            return endRemotely(callID, reason: endedReason(call), rememberIfUnknown: true, now: now)
        default:
            guard let reason = Self.updateEndReason(type) else { return [] }
            return endRemotely(callID, reason: reason, rememberIfUnknown: true, now: now)
        }
    }

    /// The reason of the four endings a callee device may hear of before the call (event or alert/background push).
    private static func updateEndReason(_ type: EventType) -> CallEndReason? {
        switch type {
        case .callCancelled: .remoteEnded
        case .callAnsweredElsewhere: .answeredElsewhere
        case .callDeclinedElsewhere: .declinedElsewhere
        case .callUnanswered: .unanswered
        default: nil
        }
    }

    /// The callee answered this device's outgoing call, once, by event or refresh.
    private mutating func outgoingAnswered(_ callID: String) -> [PhoneCallEffect] {
        guard var call = calls[callID], call.direction == .outgoing, call.phase == .ringing else { return [] }
        call.phase = .active
        calls[callID] = call
        return [.reportOutgoingConnected(id: call.uuid), .startKeepalive(callID: callID), .fetchMedia(callID: callID)]
    }

    // MARK: Endings

    /// Ends a call for a reason the local user did not cause, exactly once. The end goes to the UI before the
    /// pending answer's failure: CallKit ends a call whose answer action fails, and would then ignore the
    /// report, showing a failed call instead of this reason.
    private mutating func endRemotely(
        _ callID: String, reason: CallEndReason, rememberIfUnknown: Bool = false,
        now: Date
    ) -> [PhoneCallEffect] {
        guard var call = calls[callID] else {
            if rememberIfUnknown { remember(callID, reason: reason, now: now) }
            return []
        }
        guard call.phase != .ended else { return [] }
        // The server's word that the call rang out, while this device's answer given in time is unconfirmed: the
        // user did answer and the network lost it, which is no missed call. The server ended the call, so nothing
        // is declined.
        let reason =
            reason == .unanswered && call.phase == .answering && !call.answeredLate ? .answerNotDelivered : reason
        let answerPending = call.answerPending
        call.phase = .ended
        call.endReason = reason
        call.answerPending = false
        call.endedAt = now
        calls[callID] = call
        return [.reportEnded(id: call.uuid, reason: reason)]
            + (answerPending ? [.completeAnswer(callID: callID, fulfilled: false)] : [])
            + [.ended(callID: callID, reason: reason)]
    }

    private mutating func endLocally(_ callID: String, now: Date) -> [PhoneCallEffect] {
        guard var call = calls[callID], call.phase != .ended else { return [] }
        let (phase, answerPending) = (call.phase, call.answerPending)
        call.phase = .ended
        call.answerPending = false
        call.endedAt = now
        calls[callID] = call
        let kind: PendingCallAction.Kind =
            switch (call.direction, phase) {
            case (.incoming, .ringing), (.incoming, .answering): .decline
            case (.outgoing, .ringing): .cancel
            default: .end
            }
        return (answerPending ? [.completeAnswer(callID: callID, fulfilled: false)] : [])
            + [.ended(callID: callID, reason: nil), .sendHangUp(callID: callID, kind)]
    }

    /// The hang-up that must follow a refused one, if any. A decline refused because the call is `accepted` by this
    /// device (`call-state-conflict`: its own accept reached the server first) must end the call, or it stays
    /// accepted and the user looks busy to every later caller; `answered-elsewhere` (also `accepted`) means another
    /// device answered, and ending would hang up the call the user just took there. A cancel refused because the
    /// callee answered meanwhile ends the call too. Every other refusal settles the hang-up.
    private static func hangUpAfterRefusal(
        callID: String, _ kind: PendingCallAction.Kind,
        problem: Problem
    ) -> [PhoneCallEffect] {
        guard problem.callState == .accepted else { return [] }
        switch kind {
        case .decline where problem.type == ProblemType.callStateConflict.rawValue,
            .cancel:
            return [.sendHangUp(callID: callID, .end)]
        default:
            return []
        }
    }

    private mutating func remember(_ callID: String, reason: CallEndReason, now: Date) {
        endedUnseen[callID] = EndedUnseen(reason: reason, learnedAt: now)
        Self.keepNewest(in: &endedUnseen, learnedAt: \.learnedAt)
    }

    private mutating func rememberAnswered(_ callID: String, now: Date) {
        answeredUnseen[callID] = now
        Self.keepNewest(in: &answeredUnseen, learnedAt: \.self)
    }

    /// The bound of both memories of calls heard of before they were seen: past ``endedUnseenLimit`` entries the
    /// one learned first goes (ties: the smaller call id).
    private static func keepNewest<Value>(in memory: inout [String: Value], learnedAt: KeyPath<Value, Date>) {
        while memory.count > endedUnseenLimit,
            let oldest = memory.min(by: {
                ($0.value[keyPath: learnedAt], $0.key) < ($1.value[keyPath: learnedAt], $1.key)
            })
        {
            memory[oldest.key] = nil
        }
    }

    private mutating func forgetOldEndedUnseen(now: Date) {
        Self.forgetOld(in: &endedUnseen, learnedAt: \.learnedAt, now: now)
        Self.forgetOld(in: &answeredUnseen, learnedAt: \.self, now: now)
        // Calls that ended here go after the same time: their pushes are long dropped upstream, and the map
        // would otherwise grow for as long as the process runs.
        if calls.contains(where: {
            $0.value.endedAt.map { now.timeIntervalSince($0) >= Self.endedUnseenLifetime } ?? false
        }) {
            calls = calls.filter {
                $0.value.endedAt.map { now.timeIntervalSince($0) < Self.endedUnseenLifetime } ?? true
            }
        }
    }

    /// Drops what was learned ``endedUnseenLifetime`` seconds or more before `now`.
    private static func forgetOld<Value>(in memory: inout [String: Value], learnedAt: KeyPath<Value, Date>, now: Date) {
        guard !memory.isEmpty else { return }
        memory = memory.filter { now.timeIntervalSince($0.value[keyPath: learnedAt]) < endedUnseenLifetime }
    }

    /// The reason to close `call` with on this device, or nil while it is still up here (or unknown).
    public func reasonIfOver(_ call: Call) -> CallEndReason? {
        guard let direction = calls[call.callID]?.direction else { return nil }
        let answeredHere = call.acceptedDeviceID == deviceID
        switch (direction, call.state) {
        case (_, .ringing), (.outgoing, .accepted): return nil
        case (.incoming, .accepted): return answeredHere ? nil : .answeredElsewhere
        case (.incoming, .ended):
            return answeredHere ? Self.endReason(forSystemEnd: call) ?? .remoteEnded : .answeredElsewhere
        case (.outgoing, .ended): return Self.endReason(forSystemEnd: call) ?? .remoteEnded
        case (.incoming, _): return Self.endReason(forFinal: call.state)
        case (.outgoing, .unanswered): return .unanswered
        case (.outgoing, .failed): return .failed
        case (.outgoing, _): return .remoteEnded
        }
    }

    /// The reason `call.ended` gives: `remoteEnded` for the caller and for the device that answered (or the
    /// server's own reason, ``endReason(forSystemEnd:)``); `answeredElsewhere` for the callee's other devices,
    /// which learn of the answer only now (they missed `call.answered_elsewhere`). A call this device does not
    /// know counts as incoming: only its push can still come.
    private func endedReason(_ call: Call) -> CallEndReason {
        let incoming = (calls[call.callID]?.direction ?? .incoming) == .incoming
        guard incoming, let answered = call.acceptedDeviceID, answered != deviceID else {
            return Self.endReason(forSystemEnd: call) ?? .remoteEnded
        }
        return .answeredElsewhere
    }

    /// The reason for a call the server ended itself (``Call/endReason``): `failed` when the connection was
    /// lost (the call broke; CallKit's "an error occurred"), `remoteEnded` at the maximum duration (the far end,
    /// the server, hung up a call that worked); nil when a participant ended it.
    public static func endReason(forSystemEnd call: Call) -> CallEndReason? {
        switch call.endReason {
        case .connectionLost?: .failed
        case .some: .remoteEnded
        case nil: nil
        }
    }

    /// The reason a callee device shows for a call that reached `state` without it.
    public static func endReason(forFinal state: CallState) -> CallEndReason {
        switch state {
        case .unanswered: .unanswered
        case .accepted: .answeredElsewhere
        case .declined: .declinedElsewhere
        case .failed: .failed
        default: .remoteEnded
        }
    }

    // MARK: Clock

    /// Takes one server-minus-phone sample, seconds. A sample close to the current offset refines it (the
    /// larger is the less delayed); one far from it replaces it (the phone's clock was set).
    private mutating func learnClock(sample: TimeInterval) -> [PhoneCallEffect] {
        guard sample.isFinite else { return [] }
        let next =
            if let clockOffset, abs(sample - clockOffset) <= Self.clockSampleTolerance {
                max(clockOffset, sample)
            } else {
                sample
            }
        guard next != clockOffset else { return [] }
        clockOffset = next
        return [.saveClockOffset(next)]
    }
}
