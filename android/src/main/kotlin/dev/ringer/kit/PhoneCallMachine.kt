package dev.ringer.kit

/**
 * The life of a device's calls with no I/O and no clock of its own: every input, with the phone's clock
 * reading, returns the effects its owner (the CallCoordinator) must carry out, in order. The same behaviour
 * is written down as language-neutral test vectors (TestVectors/phone-call, docs/test-vectors.md) that the
 * Swift and Kotlin machines both pass. Swift: `PhoneCallMachine` (RingerKit).
 *
 * Rules it holds:
 * - Phases: incoming ringing → answering (answered, not yet confirmed) → active → ended; outgoing
 *   ringing → active → ended. Ended is final.
 * - A local end declines a ringing or answering incoming call, cancels a ringing outgoing one, ends an active one.
 * - Remote endings close the call exactly once, with the [CallEndReason] the server's news maps to.
 * - Ended before seen: an end for a call the device does not know is remembered (at most [ENDED_UNSEEN_LIMIT]
 *   calls, for [ENDED_UNSEEN_LIFETIME_MS]), so the call's late push does not ring.
 * - An answer is never dropped: once the user answered, the accept is sent until the server answers it
 *   ([PhoneCallEffect.SendAccept]); a transport failure is no refusal. The unconfirmed answer is part of [memory],
 *   so a new process sends it again ([PhoneCallInput.Launched]). Only the ring deadline ends it, as
 *   [CallEndReason.ANSWER_NOT_DELIVERED], with a decline in case the accept did land (the server then ends the call
 *   instead of keeping it accepted with nobody on this end).
 * - Ended stays ended: a call that ended here, or whose end came first, is never forgotten as if it had never
 *   rung, within the same bounds as ends heard first, across processes too ([memory]). A call still up when the
 *   app's process dies ended with it (the system closes a dead app's native calls): the next process never rings it
 *   again, and reports a late push for it under a new id (one native call per call id).
 * - Staleness is judged on the server's clock only, through the offset learned from it ([clockOffsetMs]);
 *   while no offset is known a push rings.
 * - A call among other calls: an active call may be held and resumed, and any call not over muted, by the system or
 *   at the app's request, which goes through the system (docs/decisions/0008); keypad tones (DTMF) are played only on
 *   the call that has the audio, the same two ways. One call has the audio: resuming a
 *   call, answering one or placing one holds every other active call first. Ending a call resumes nothing (Apple
 *   leaves a held call held when the other ends, so nobody is overheard). A held call is still active: it is kept
 *   alive and ends as any answered call.
 *
 * Not thread-safe: the owner serialises calls (one lock or one coroutine). [copy] gives an independent machine,
 * as the Swift value type would.
 *
 * @param deviceId this device's id (`accepted_device_id` equal to it means "answered here").
 * @param clockOffsetMs the server-minus-phone offset kept from an earlier launch, ms; null if none.
 * @param memory what the previous process kept ([PhoneCallMachine.memory]): its ends are remembered as ends heard
 *   first (same bounds), and its unconfirmed answers are taken up by [PhoneCallInput.Launched].
 */
class PhoneCallMachine(val deviceId: String, clockOffsetMs: Long? = null, memory: Memory = Memory()) {
    /** Who placed a call. */
    enum class Direction(val rawValue: String) {
        /** Another user called this device's user. */
        INCOMING("incoming"),
        /** This device placed the call. */
        OUTGOING("outgoing")
    }

    /** Where a call is on this device; [rawValue] as the vectors spell it. */
    enum class Phase(val rawValue: String) {
        /** On screen, not answered yet. */
        RINGING("ringing"),
        /** The user answered; the server has not confirmed yet (or the app is still launching). */
        ANSWERING("answering"),
        /** Answered and confirmed. */
        ACTIVE("active"),
        /** Over here; final. */
        ENDED("ended")
    }

    /**
     * One call the device knows.
     * @property calleeId the user an incoming call is for (when its push said), or the callee of an outgoing call.
     * @property expiresAtMs the ring deadline, server clock, Unix ms.
     * @property localDeadlineMs the ring deadline on the phone's clock, as well as the device can tell it.
     * @property answerPending true while a native answer action waits for the server.
     * @property endReason why it ended remotely; null while up or when the local user ended it.
     * @property caller who placed an incoming call (null for outgoing calls), to report it again after a relaunch.
     * @property hasVideo whether the call offers video.
     * @property endedAtMs when it ended here (or its end was heard, for one ended before seen), phone clock, Unix
     *   ms; null while it is up.
     * @property answeredLate true when the user answered after the ring deadline on the server's timeline, as far as
     *   the device knew it then: the server refuses every answer after its deadline, so such an answer, never
     *   confirmed, ends the call `unanswered` at the device's deadline, not `answer_not_delivered`.
     * @property held true while the system holds the active call (its media paused); only an active call is held.
     * @property muted true while the call's microphone is muted, as the system last said.
     */
    data class PhoneCall(
        val callId: String,
        val calleeId: String?,
        val direction: Direction,
        val phase: Phase,
        val expiresAtMs: Long,
        val localDeadlineMs: Long,
        val answerPending: Boolean,
        val endReason: CallEndReason? = null,
        val caller: Party? = null,
        val hasVideo: Boolean = false,
        val endedAtMs: Long? = null,
        val shown: Boolean = false,
        val deadlineArmed: Boolean = false,
        val answeredLate: Boolean = false,
        val group: PushGroup? = null,
        val legs: List<CallLeg>? = null,
        val held: Boolean = false,
        val muted: Boolean = false,
        val waiting: Boolean = false
    )

    /**
     * A call that ended before the device saw it, or that was on this device's screen in an earlier process (it ended
     * there, or was still up when that process died: the system closes a dead app's native calls).
     * @property reason how it ended, as this device would show it.
     * @property learnedAtMs when the device learned it, phone clock, Unix ms; for a call still up when its process
     *   died, its ring deadline.
     * @property shownHere true when the call was on this device's screen in an earlier process: its id was shown once
     *   already, so a late push is reported under a new id (one native call per call id). Swift: `shownHere`.
     */
    data class EndedUnseen(val reason: CallEndReason, val learnedAtMs: Long, val shownHere: Boolean = false)

    /**
     * An answer the user gave that the server has not confirmed: enough to show the call again and send the answer
     * from a new process.
     * @property calleeId the user the call is for, when known.
     * @property expiresAtMs the ring deadline, server clock, Unix ms.
     * @property localDeadlineMs the ring deadline on the phone's clock, Unix ms (the restored call's deadline is
     *   this plus [DEADLINE_GRACE_MS]).
     */
    data class UnconfirmedAnswer(
        val caller: Party,
        val calleeId: String?,
        val hasVideo: Boolean,
        val expiresAtMs: Long,
        val localDeadlineMs: Long,
        val group: PushGroup? = null
    )

    /**
     * What the machine must find again in the app's next process: the ends it knows (a late push or a redelivered
     * FCM message for one of them is reported and ended, never rung) and the answers not yet confirmed. The owner
     * persists it whenever it changes, before carrying out the input's effects ([CallMemoryStore]), and builds the
     * next process's machine from it. Swift: `PhoneCallMachine.Memory`.
     * @property endedCalls calls over, by lowercase call id: at most [ENDED_UNSEEN_LIMIT], the newest.
     * @property unconfirmedAnswers answers the server has not confirmed, by lowercase call id.
     */
    data class Memory(
        val endedCalls: Map<String, EndedUnseen> = emptyMap(),
        val unconfirmedAnswers: Map<String, UnconfirmedAnswer> = emptyMap()
    )

    private val callTable = HashMap<String, PhoneCall>()
    private val endedUnseenTable = HashMap<String, EndedUnseen>()
    private val answeredUnseenTable = HashMap<String, Long>()
    /** Answers kept from the previous process, waiting for [PhoneCallInput.Launched]. */
    private val answersToRestore = HashMap<String, UnconfirmedAnswer>()

    init {
        endedUnseenTable.putAll(memory.endedCalls)
        keepNewest(endedUnseenTable) { it.learnedAtMs }
        answersToRestore.putAll(memory.unconfirmedAnswers)
    }

    /** The calls the device knows, by lowercase call id (a read-only snapshot). */
    val calls: Map<String, PhoneCall> get() = HashMap(callTable)

    /** Calls that ended before the device saw them, by call id (a snapshot). */
    val endedUnseen: Map<String, EndedUnseen> get() = HashMap(endedUnseenTable)

    /**
     * This device's outgoing calls the callee answered before `POST /v1/calls` answered, with when the device
     * heard it (phone clock, ms). Same bounds as [endedUnseen].
     */
    val answeredUnseen: Map<String, Long> get() = HashMap(answeredUnseenTable)

    /**
     * The server's clock minus the phone's, ms; null until learned. One-way samples undershoot by the network delay.
     */
    var clockOffsetMs: Long? = clockOffsetMs
        private set

    /**
     * What the next process must know ([Memory]): the ends heard first and the calls ended here, the newest
     * [ENDED_UNSEEN_LIMIT] (a call the local user ended is kept as `remote_ended`), and the answers still
     * unconfirmed, including those a [PhoneCallInput.Launched] has not taken up yet. A new value on every read.
     */
    val memory: Memory
        get() {
            val ended = HashMap(endedUnseenTable)
            for ((callId, call) in callTable) {
                // A call still up when the process dies dies with it (Telecom and CallKit close a dead app's calls),
                // so it is kept as over, lest a late message ring it a second time.
                if (call.phase == Phase.ANSWERING) continue
                ended[callId] = if (call.phase == Phase.ENDED) {
                    EndedUnseen(call.endReason ?: CallEndReason.REMOTE_ENDED, call.endedAtMs ?: Long.MIN_VALUE,
                        shownHere = true)
                } else {
                    EndedUnseen(CallEndReason.FAILED, call.localDeadlineMs, shownHere = true)
                }
            }
            keepNewest(ended) { it.learnedAtMs }
            val answers = HashMap(answersToRestore)
            for ((callId, call) in callTable) {
                if (call.phase != Phase.ANSWERING) continue
                answers[callId] = UnconfirmedAnswer(call.caller ?: Party("unknown"), call.calleeId, call.hasVideo,
                    call.expiresAtMs, call.localDeadlineMs, call.group)
            }
            return Memory(ended, answers)
        }

    /** The phase of a call; null when unknown. */
    fun phase(callId: String): Phase? = callTable[callId]?.phase

    /** The ids of calls not ended yet, sorted. */
    val liveCallIds: List<String>
        get() = callTable.filter { it.value.phase != Phase.ENDED }.keys.sorted()

    /** An independent machine in the same state (Swift's machine is a value; this is its copy). */
    fun copy(): PhoneCallMachine {
        val other = PhoneCallMachine(deviceId, clockOffsetMs)
        other.callTable.putAll(callTable)
        other.endedUnseenTable.putAll(endedUnseenTable)
        other.answeredUnseenTable.putAll(answeredUnseenTable)
        other.answersToRestore.putAll(answersToRestore)
        return other
    }

    /**
     * Applies an input.
     * @param input what happened.
     * @param atMs the phone's clock when it happened, Unix ms.
     * @return the effects to carry out, in order; possibly none.
     */
    fun handle(input: PhoneCallInput, atMs: Long): List<PhoneCallEffect> {
        forgetOld(atMs)
        return when (input) {
            is PhoneCallInput.IncomingPush -> incomingPush(input.push, input.account, input.reportsEveryPush, atMs)
            is PhoneCallInput.UnreadablePush -> {
                val effects = ArrayList<PhoneCallEffect>()
                if (input.reportsEveryPush) {
                    effects.add(PhoneCallEffect.ReportAndEnd(null, Party("unknown"), CallEndReason.FAILED))
                }
                effects.add(PhoneCallEffect.PushHandled(null, PushDisposition.UNREADABLE))
                effects
            }
            is PhoneCallInput.IncomingEvent -> incomingEvent(input.call, atMs)
            is PhoneCallInput.ReportFinished -> reportFinished(input.callId, input.accepted, atMs)
            is PhoneCallInput.Event -> participants(input.call) + event(input.type, input.call, atMs)
            is PhoneCallInput.UpdatePush -> {
                val reason = updateEndReason(input.type)
                if (reason == null) emptyList() else endRemotely(input.callId, reason, true, atMs)
            }
            is PhoneCallInput.Answer -> answer(input.callId, atMs)
            is PhoneCallInput.AnswerConfirmed -> answerConfirmed(input.callId)
            is PhoneCallInput.AnswerRefused -> {
                // The answer lost to whatever ended the call first: say which, as the matching event would have. A
                // refusal that names no call state (an expired token, an unknown call) means the call failed here.
                val problem = input.problem
                val callState = problem.callState
                val reason = when {
                    problem.type == ProblemType.ANSWERED_ELSEWHERE.rawValue -> CallEndReason.ANSWERED_ELSEWHERE
                    callState != null -> endReasonForFinal(callState)
                    else -> CallEndReason.FAILED
                }
                endRemotely(input.callId, reason, false, atMs)
            }
            is PhoneCallInput.RingingRefused -> {
                // `ended`: another device answered and the call is over since; this one is only now ringing.
                val callState = input.problem.callState
                val reason = when {
                    callState == CallState.ENDED -> CallEndReason.ANSWERED_ELSEWHERE
                    callState != null -> endReasonForFinal(callState)
                    else -> CallEndReason.FAILED
                }
                endRemotely(input.callId, reason, false, atMs)
            }
            is PhoneCallInput.HangUpRefused -> hangUpAfterRefusal(input.callId, input.kind, input.problem)
            is PhoneCallInput.End -> endLocally(input.callId, atMs)
            is PhoneCallInput.EndAll -> liveCallIds.flatMap { endLocally(it, atMs) }
            is PhoneCallInput.OutgoingPlaced -> outgoingPlaced(input.call, atMs)
            is PhoneCallInput.CallRead -> {
                val call = input.call
                val effects = ArrayList<PhoneCallEffect>(participants(call))
                // A caller whose app missed `call.accepted` (no resume point yet) learns of the answer here.
                if (call.state == CallState.ACCEPTED && callTable[call.callId]?.direction == Direction.OUTGOING) {
                    effects.addAll(outgoingAnswered(call.callId))
                }
                val reason = reasonIfOver(call)
                if (reason != null) effects.addAll(endRemotely(call.callId, reason, false, atMs))
                effects
            }
            is PhoneCallInput.KeepaliveRefused -> {
                val read = input.call
                val reason = (if (read != null) reasonIfOver(read) else null) ?: CallEndReason.FAILED
                endRemotely(input.callId, reason, false, atMs)
            }
            is PhoneCallInput.DeadlineReached -> {
                val call = callTable[input.callId]
                when {
                    call?.phase == Phase.RINGING -> endRemotely(input.callId, CallEndReason.UNANSWERED, false, atMs)
                    // Answered after the server's deadline: the server cannot have taken it (a passed deadline wins
                    // over any input there), so the call rang out, and there is nothing to decline.
                    call?.phase == Phase.ANSWERING && call.answeredLate ->
                        endRemotely(input.callId, CallEndReason.UNANSWERED, false, atMs)
                    // The answer never reached the server in time. The decline ends the call on the server if the
                    // accept landed after all (its answer lost), instead of leaving the caller talking to nobody.
                    call?.phase == Phase.ANSWERING ->
                        endRemotely(input.callId, CallEndReason.ANSWER_NOT_DELIVERED, false, atMs) +
                            PhoneCallEffect.SendHangUp(input.callId, PendingCallAction.Kind.DECLINE)
                    else -> emptyList()
                }
            }
            is PhoneCallInput.AccountChanged -> {
                // An answer still unconfirmed goes too: its accept would be sent with the next user's credentials.
                val stale = callTable.filter { (_, call) ->
                    call.direction == Direction.INCOMING && (call.phase == Phase.RINGING || call.phase == Phase.ANSWERING) &&
                        refuses(input.account, call.calleeId)
                }.keys.sorted()
                // An answer that may have landed is declined too, as at a deadline (sent if this user logs in again).
                stale.flatMap { callId ->
                    val answering = callTable[callId]?.phase == Phase.ANSWERING
                    val ended = endRemotely(callId, CallEndReason.FAILED, false, atMs)
                    if (answering) ended + PhoneCallEffect.SendHangUp(callId, PendingCallAction.Kind.DECLINE) else ended
                }
            }
            is PhoneCallInput.ServerTime -> learnClock(input.serverTimeMs - atMs)
            is PhoneCallInput.PhoneClockChanged -> {
                clockOffsetMs = null
                emptyList()
            }
            is PhoneCallInput.Launched -> restoreAnswers(atMs)
            is PhoneCallInput.SetHeld -> setHeld(input.callId, input.held, input.by)
            is PhoneCallInput.SetMuted -> setMuted(input.callId, input.muted, input.by)
            is PhoneCallInput.PlayDtmf -> when {
                !mayPlayDtmf(input.callId, input.digits) -> emptyList()
                input.by == ControlSource.APP -> listOf(PhoneCallEffect.RequestDtmf(input.callId, input.digits))
                else -> listOf(PhoneCallEffect.Dtmf(input.callId, input.digits))
            }
        }
    }

    // Hold and mute

    /** True when the call may be held or resumed: only an active call (not ringing, not answering, not over) is. */
    fun mayHold(callId: String): Boolean = callTable[callId]?.phase == Phase.ACTIVE

    /** True when the call may be muted or unmuted: any call not over (an outgoing call may be muted while it dials). */
    fun mayMute(callId: String): Boolean = (callTable[callId]?.phase ?: Phase.ENDED) != Phase.ENDED

    /**
     * True when [digits] (one to 64 of [DTMF_DIGITS]) may be played on the call now: only the call that has the audio,
     * active and not held, sends tones the other party can hear. Swift: `mayPlayDTMF(_:_:)`.
     */
    fun mayPlayDtmf(callId: String, digits: String): Boolean =
        mayHold(callId) && callTable[callId]?.held == false && digits.length in 1..64 && digits.all { it in DTMF_DIGITS }

    /**
     * True when the call is in the state a [PhoneCallInput.SetHeld] from the system asked for: the native UI completes
     * its change then, and refuses it otherwise (a call not active cannot be held, an unknown one neither).
     */
    fun isHeld(callId: String, held: Boolean): Boolean = mayHold(callId) && callTable[callId]?.held == held

    /** True when the call is not over and in the mute state asked for ([isHeld]'s counterpart). */
    fun isMuted(callId: String, muted: Boolean): Boolean = mayMute(callId) && callTable[callId]?.muted == muted

    /**
     * Only a call that [mayHold] is held, and one that is already so changes nothing. Resuming holds the others first,
     * so two calls are never heard at once.
     */
    private fun setHeld(callId: String, held: Boolean, by: ControlSource): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || !mayHold(callId) || call.held == held) return emptyList()
        val others = if (held) emptyList() else holdOthers(callId)
        return when (by) {
            ControlSource.APP -> others + PhoneCallEffect.RequestHeld(callId, held)
            ControlSource.SYSTEM -> {
                callTable[callId] = call.copy(held = held)
                others + PhoneCallEffect.HeldChanged(callId, held)
            }
        }
    }

    /**
     * A call on screen may be muted before it is answered (the system's UI offers it while an outgoing call dials), so
     * any call that [mayMute] takes it.
     */
    private fun setMuted(callId: String, muted: Boolean, by: ControlSource): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || !mayMute(callId) || call.muted == muted) return emptyList()
        return when (by) {
            ControlSource.APP -> listOf(PhoneCallEffect.RequestMuted(callId, muted))
            ControlSource.SYSTEM -> {
                callTable[callId] = call.copy(muted = muted)
                listOf(PhoneCallEffect.MutedChanged(callId, muted))
            }
        }
    }

    /**
     * Requests to hold every active call other than [callId] not held yet, by call id: the call about to have the
     * audio takes it from them. The system's answers come back as inputs, so a hold the system made itself first
     * leaves nothing to request.
     */
    private fun holdOthers(callId: String): List<PhoneCallEffect> =
        callTable.filter { it.key != callId && it.value.phase == Phase.ACTIVE && !it.value.held }.keys.sorted()
            .map { PhoneCallEffect.RequestHeld(it, true) }

    /**
     * Takes up the answers the previous process kept: before its deadline an answer's call is shown again and its
     * accept sent (once: one accept loop, as for a fresh answer); past it, the call is over as not delivered, with
     * the same decline as at a deadline, and never shown.
     */
    private fun restoreAnswers(atMs: Long): List<PhoneCallEffect> {
        val restored = HashMap(answersToRestore)
        answersToRestore.clear()
        return restored.keys.sorted().flatMap { callId ->
            val answer = restored.getValue(callId)
            if (callTable.containsKey(callId) || !CallIds.isUuid(callId)) return@flatMap emptyList<PhoneCallEffect>()
            val call = PhoneCall(callId, answer.calleeId, Direction.INCOMING, Phase.ANSWERING, answer.expiresAtMs,
                answer.localDeadlineMs, false, null, answer.caller, answer.hasVideo, deadlineArmed = true, group = answer.group)
            val deadline = answer.localDeadlineMs + DEADLINE_GRACE_MS
            if (atMs >= deadline) {
                callTable[callId] = call.copy(phase = Phase.ENDED, endReason = CallEndReason.ANSWER_NOT_DELIVERED, endedAtMs = atMs)
                return@flatMap listOf(PhoneCallEffect.Ended(callId, CallEndReason.ANSWER_NOT_DELIVERED),
                    PhoneCallEffect.SendHangUp(callId, PendingCallAction.Kind.DECLINE))
            }
            callTable[callId] = call
            listOf(PhoneCallEffect.ReportIncoming(callId, IncomingCallReport(callId, answer.caller, answer.hasVideo, answer.group)),
                PhoneCallEffect.ArmDeadline(callId, deadline), PhoneCallEffect.SendAccept(callId))
        }
    }

    // Incoming

    private fun incomingPush(push: IncomingPush, account: PhoneAccount, reportsEveryPush: Boolean, atMs: Long): List<PhoneCallEffect> {
        val callId = push.callId
        val report = IncomingCallReport(callId, push.caller, push.hasVideo, push.group)
        val disposition: PushDisposition
        val effects = ArrayList<PhoneCallEffect>()
        val known = callTable[callId]
        val ended = if (known == null) endedUnseenTable.remove(callId) else null
        if (known != null) {
            disposition = if (known.phase == Phase.ENDED) PushDisposition.ALREADY_ENDED else PushDisposition.DUPLICATE
            if (reportsEveryPush) {
                // PushKit requires a report for every VoIP push; the extra report of a call already ended ends as the
                // call did here (a call this device's user ended has no remote reason to repeat).
                effects.add(if (known.phase == Phase.ENDED)
                    PhoneCallEffect.ReportAndEnd(null, push.caller, known.endReason ?: CallEndReason.REMOTE_ENDED)
                else PhoneCallEffect.ReportDuplicate(report))
            }
        } else if (ended != null) {
            // Its end came first, or it was on screen in an earlier process: reported and ended at once, under its own
            // id only if that id was never shown.
            callTable[callId] = PhoneCall(callId, push.calleeId, Direction.INCOMING, Phase.ENDED, push.expiresAtMs, atMs,
                false, ended.reason, push.caller, push.hasVideo, ended.learnedAtMs)
            disposition = PushDisposition.ALREADY_ENDED
            if (reportsEveryPush) {
                effects.add(PhoneCallEffect.ReportAndEnd(if (ended.shownHere) null else callId, push.caller, ended.reason))
            }
        } else if (isPast(push.expiresAtMs, atMs)) {
            disposition = PushDisposition.EXPIRED
            if (reportsEveryPush) effects.add(PhoneCallEffect.ReportAndEnd(callId, push.caller, CallEndReason.UNANSWERED))
        } else if (refuses(account, push.calleeId)) {
            disposition = if (account == PhoneAccount.LoggedOut) PushDisposition.LOGGED_OUT else PushDisposition.OTHER_USER
            if (reportsEveryPush) effects.add(PhoneCallEffect.ReportAndEnd(callId, push.caller, CallEndReason.FAILED))
        } else {
            callTable[callId] = PhoneCall(callId, push.calleeId, Direction.INCOMING, Phase.RINGING, push.expiresAtMs,
                localDeadline(push.expiresAtMs, push.expiresAtMs - push.sentAtMs, atMs), false, null, push.caller, push.hasVideo,
                group = push.group, waiting = push.waiting)
            disposition = PushDisposition.RINGING
            effects.add(PhoneCallEffect.ReportIncoming(callId, report))
        }
        effects.add(PhoneCallEffect.PushHandled(callId, disposition))
        return effects
    }

    private fun incomingEvent(call: Call, atMs: Long): List<PhoneCallEffect> {
        val callId = call.callId
        if (!CallIds.isUuid(callId) || call.state != CallState.RINGING || callTable.containsKey(callId)) return emptyList()
        val ended = endedUnseenTable.remove(callId)
        if (ended != null) {
            // Known to be over: kept as ended so the call's push, if it still comes, is reported and ended.
            callTable[callId] = PhoneCall(callId, call.callee.id, Direction.INCOMING, Phase.ENDED, call.expiresAtMs, atMs,
                false, ended.reason, call.caller, call.hasVideo, ended.learnedAtMs)
            return emptyList()
        }
        if (isPast(call.expiresAtMs, atMs)) return emptyList()
        val group = groupOf(call)
        callTable[callId] = PhoneCall(callId, call.callee.id, Direction.INCOMING, Phase.RINGING, call.expiresAtMs,
            localDeadline(call.expiresAtMs, call.expiresAtMs - call.createdAtMs, atMs), false, null, call.caller, call.hasVideo,
            group = group, legs = call.legs, waiting = call.waiting == true)
        return listOf(PhoneCallEffect.ReportIncoming(callId, IncomingCallReport(callId, call.caller, call.hasVideo, group)))
    }

    /**
     * A group call's legs as an event or read tells them: noted, and observed when they changed, for a call this device
     * knows and has not ended; never a change of phase.
     */
    private fun participants(call: Call): List<PhoneCallEffect> {
        val legs = call.legs ?: return emptyList()
        val known = callTable[call.callId] ?: return emptyList()
        if (known.phase == Phase.ENDED || known.legs == legs) return emptyList()
        callTable[call.callId] = known.copy(legs = legs)
        return listOf(PhoneCallEffect.ParticipantsChanged(call.callId, legs))
    }

    private fun reportFinished(callId: String, accepted: Boolean, atMs: Long): List<PhoneCallEffect> {
        val call = callTable[callId] ?: return emptyList()
        return when {
            call.phase == Phase.RINGING && accepted -> {
                callTable[callId] = call.copy(shown = true, deadlineArmed = true)
                listOf(PhoneCallEffect.Ringing(callId), PhoneCallEffect.ArmDeadline(callId, call.localDeadlineMs + DEADLINE_GRACE_MS),
                    PhoneCallEffect.SendRinging(callId))
            }
            // Answered before the UI had the call (the app's own screen, or an answer restored after a relaunch): the
            // UI shows it answering now, and the deadline that ends an undelivered answer is armed if the restore did
            // not arm it.
            call.phase == Phase.ANSWERING && accepted -> {
                callTable[callId] = call.copy(shown = true, deadlineArmed = true)
                val effects = ArrayList<PhoneCallEffect>()
                effects.add(PhoneCallEffect.ReportAnswering(callId))
                if (!call.deadlineArmed) effects.add(PhoneCallEffect.ArmDeadline(callId, call.localDeadlineMs + DEADLINE_GRACE_MS))
                effects
            }
            // Confirmed before the UI had the call: the answer it could not show then is shown now.
            call.phase == Phase.ACTIVE && accepted -> {
                callTable[callId] = call.copy(shown = true)
                if (call.shown || call.direction != Direction.INCOMING) emptyList() else listOf(PhoneCallEffect.ReportAnswered(callId))
            }
            call.phase == Phase.RINGING -> {
                // The system refused to ring (Do Not Disturb, a blocked caller): forget it so a later push can ring.
                callTable.remove(callId)
                emptyList()
            }
            // An answer restored after a relaunch that the system will not show: the user cannot see the call, so it
            // is declined rather than connected to nobody.
            call.phase == Phase.ANSWERING && !accepted -> endLocally(callId, atMs)
            // Ended while the UI was still taking the report (a cancel before Telecom created the connection): it
            // stays ended, so a redelivered data message never rings it again.
            else -> emptyList()
        }
    }

    /**
     * The hang-up that must follow a refused one, if any. A decline refused because the call is `accepted` by this
     * device (`call-state-conflict`: its own accept reached the server first) must end the call, or it stays accepted
     * and the user looks busy to every later caller; `answered-elsewhere` (also `accepted`) means another device
     * answered, and ending would hang up the call the user just took there. A cancel refused because the callee
     * answered meanwhile ends the call too. Every other refusal settles the hang-up.
     */
    private fun hangUpAfterRefusal(callId: String, kind: PendingCallAction.Kind, problem: Problem): List<PhoneCallEffect> {
        if (problem.callState != CallState.ACCEPTED) return emptyList()
        val endInstead = when (kind) {
            PendingCallAction.Kind.DECLINE -> problem.type == ProblemType.CALL_STATE_CONFLICT.rawValue
            PendingCallAction.Kind.CANCEL -> true
            PendingCallAction.Kind.END -> false
        }
        return if (endInstead) listOf(PhoneCallEffect.SendHangUp(callId, PendingCallAction.Kind.END)) else emptyList()
    }

    private fun answer(callId: String, atMs: Long): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.direction != Direction.INCOMING) return emptyList()
        return when (call.phase) {
            Phase.RINGING -> {
                // Sent all the same: the clock offset is an estimate, and only the server knows its deadline.
                callTable[callId] = call.copy(phase = Phase.ANSWERING, answerPending = true,
                    answeredLate = isPast(call.expiresAtMs, atMs))
                // The native UI stops ringing at the tap, however the user answered; a UI still taking the report is
                // told when it finishes. The call being answered takes the audio from any other.
                holdOthers(callId) +
                    if (call.shown) listOf(PhoneCallEffect.ReportAnswering(callId), PhoneCallEffect.SendAccept(callId))
                    else listOf(PhoneCallEffect.SendAccept(callId))
            }
            Phase.ANSWERING -> {
                // A second way of answering (Telecom's onAnswer after the app's own screen, or a restored answer):
                // the accept is already on its way; this answer waits for it too.
                callTable[callId] = call.copy(answerPending = true)
                emptyList()
            }
            // The native UI catching up with an answer the server confirmed.
            Phase.ACTIVE -> listOf(PhoneCallEffect.CompleteAnswer(callId, true))
            Phase.ENDED -> emptyList()
        }
    }

    private fun answerConfirmed(callId: String): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.phase != Phase.ANSWERING) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ACTIVE, answerPending = false)
        val effects = ArrayList<PhoneCallEffect>()
        if (call.answerPending) effects.add(PhoneCallEffect.CompleteAnswer(callId, true))
        if (call.shown) effects.add(PhoneCallEffect.ReportAnswered(callId))
        effects.add(PhoneCallEffect.StartKeepalive(callId))
        effects.add(PhoneCallEffect.Answered(callId))
        return effects
    }

    /** True when [deadlineMs] (server clock) has passed as far as the device knows; never while the offset is unknown. */
    private fun isPast(deadlineMs: Long, atMs: Long): Boolean {
        val offset = clockOffsetMs ?: return false
        return deadlineMs <= atMs + offset
    }

    /**
     * The phone-clock time of a server-clock deadline: exact up to the offset's error when known; else at most the
     * ring window from now (the push may have been in flight, so it never rings past its window).
     */
    private fun localDeadline(deadlineMs: Long, windowMs: Long, atMs: Long): Long {
        val offset = clockOffsetMs
        return if (offset != null) deadlineMs - offset else atMs + Math.max(0L, windowMs)
    }

    private fun refuses(account: PhoneAccount, calleeId: String?): Boolean = when (account) {
        is PhoneAccount.Launching -> false
        is PhoneAccount.LoggedOut -> true
        is PhoneAccount.LoggedIn -> calleeId != null && account.userId != null && calleeId != account.userId
    }

    // Events

    private fun event(type: EventType, call: Call, atMs: Long): List<PhoneCallEffect> {
        val callId = call.callId
        return when (type) {
            EventType.CALL_INCOMING -> incomingEvent(call, atMs)
            EventType.CALL_ACCEPTED -> {
                if (!callTable.containsKey(callId)) {
                    answeredUnseenTable[callId] = atMs
                    keepNewest(answeredUnseenTable) { it }
                    emptyList()
                } else outgoingAnswered(callId)
            }
            EventType.CALL_DECLINED -> endRemotely(callId, CallEndReason.REMOTE_ENDED, true, atMs)
            EventType.CALL_ENDED -> endRemotely(callId, endedReason(call), true, atMs)
            else -> {
                val reason = updateEndReason(type)
                if (reason == null) emptyList() else endRemotely(callId, reason, true, atMs)
            }
        }
    }

    /** The callee answered this device's outgoing call, once, by event or refresh. */
    private fun outgoingAnswered(callId: String): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.direction != Direction.OUTGOING || call.phase != Phase.RINGING) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ACTIVE)
        return listOf(PhoneCallEffect.ReportOutgoingConnected(callId), PhoneCallEffect.StartKeepalive(callId),
            PhoneCallEffect.FetchMedia(callId))
    }

    private fun outgoingPlaced(call: Call, atMs: Long): List<PhoneCallEffect> {
        val callId = call.callId
        if (call.state != CallState.RINGING || !CallIds.isUuid(callId)) return emptyList()
        // The callee and video are kept so that the app can name the call before placing it returned.
        callTable[callId] = PhoneCall(callId, call.callee.id, Direction.OUTGOING, Phase.RINGING, call.expiresAtMs,
            call.expiresAtMs - (clockOffsetMs ?: 0L), false, hasVideo = call.hasVideo)
        // The call being placed takes the audio from any other.
        val placed = holdOthers(callId) + participants(call)
        // The socket can outrun the POST's answer (a retried POST, a slow network): what it already said holds.
        val ended = endedUnseenTable.remove(callId)
        if (ended != null) {
            answeredUnseenTable.remove(callId)
            return placed + endRemotely(callId, ended.reason, false, atMs)
        }
        if (answeredUnseenTable.remove(callId) != null) return placed + outgoingAnswered(callId)
        return placed
    }

    // Endings

    /**
     * Ends a call for a reason the local user did not cause, exactly once. The end goes to the UI before the pending
     * answer's failure: a call UI that ends a call whose answer failed would otherwise show a failure, not this reason.
     */
    private fun endRemotely(callId: String, news: CallEndReason, rememberIfUnknown: Boolean, atMs: Long): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null) {
            if (rememberIfUnknown) {
                endedUnseenTable[callId] = EndedUnseen(news, atMs)
                keepNewest(endedUnseenTable) { it.learnedAtMs }
            }
            return emptyList()
        }
        if (call.phase == Phase.ENDED) return emptyList()
        // The server's word that the call rang out, while this device's answer given in time is unconfirmed: the user
        // did answer and the network lost it, which is no missed call. The server ended the call: nothing is declined.
        val reason = if (news == CallEndReason.UNANSWERED && call.phase == Phase.ANSWERING && !call.answeredLate) {
            CallEndReason.ANSWER_NOT_DELIVERED
        } else {
            news
        }
        callTable[callId] = call.copy(phase = Phase.ENDED, endReason = reason, answerPending = false, endedAtMs = atMs)
        val effects = ArrayList<PhoneCallEffect>()
        effects.add(PhoneCallEffect.ReportEnded(callId, reason))
        if (call.answerPending) effects.add(PhoneCallEffect.CompleteAnswer(callId, false))
        effects.add(PhoneCallEffect.Ended(callId, reason))
        return effects
    }

    private fun endLocally(callId: String, atMs: Long): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.phase == Phase.ENDED) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ENDED, answerPending = false, endedAtMs = atMs)
        val kind = when {
            call.direction == Direction.INCOMING && (call.phase == Phase.RINGING || call.phase == Phase.ANSWERING) ->
                PendingCallAction.Kind.DECLINE
            call.direction == Direction.OUTGOING && call.phase == Phase.RINGING -> PendingCallAction.Kind.CANCEL
            else -> PendingCallAction.Kind.END
        }
        val effects = ArrayList<PhoneCallEffect>()
        if (call.answerPending) effects.add(PhoneCallEffect.CompleteAnswer(callId, false))
        effects.add(PhoneCallEffect.Ended(callId, null))
        effects.add(PhoneCallEffect.SendHangUp(callId, kind))
        return effects
    }

    /** Bounds a memory of calls heard of before they were seen: past the limit the one learned first goes (ties: the smaller id). */
    private fun <V> keepNewest(memory: HashMap<String, V>, learnedAt: (V) -> Long) {
        while (memory.size > ENDED_UNSEEN_LIMIT) {
            var oldestKey: String? = null
            var oldestAt = 0L
            for ((key, value) in memory) {
                val at = learnedAt(value)
                val current = oldestKey
                if (current == null || at < oldestAt || (at == oldestAt && key < current)) {
                    oldestKey = key
                    oldestAt = at
                }
            }
            memory.remove(oldestKey ?: return)
        }
    }

    /**
     * Drops what was learned [ENDED_UNSEEN_LIFETIME_MS] or more before [atMs], from both memories, and the calls that
     * ended here as long ago: their pushes are long dropped upstream, and the table would otherwise grow for as long
     * as the process runs.
     */
    private fun forgetOld(atMs: Long) {
        endedUnseenTable.entries.removeAll { isOld(it.value.learnedAtMs, atMs) }
        answeredUnseenTable.entries.removeAll { isOld(it.value, atMs) }
        callTable.entries.removeAll { entry -> entry.value.endedAtMs?.let { isOld(it, atMs) } ?: false }
    }

    /** True when [learnedAtMs] is [ENDED_UNSEEN_LIFETIME_MS] or more before [atMs] (no overflow for a far past). */
    private fun isOld(learnedAtMs: Long, atMs: Long): Boolean = learnedAtMs <= atMs - ENDED_UNSEEN_LIFETIME_MS

    /** The reason to close [call] with on this device; null while it is still up here, or when the call is unknown. */
    fun reasonIfOver(call: Call): CallEndReason? {
        val direction = callTable[call.callId]?.direction ?: return null
        val answeredHere = call.acceptedDeviceId == deviceId
        val state = call.state
        return when {
            state == CallState.RINGING -> null
            direction == Direction.OUTGOING && state == CallState.ACCEPTED -> null
            direction == Direction.INCOMING && state == CallState.ACCEPTED -> if (answeredHere) null else CallEndReason.ANSWERED_ELSEWHERE
            direction == Direction.INCOMING && state == CallState.ENDED ->
                if (answeredHere) endReasonForSystemEnd(call) ?: CallEndReason.REMOTE_ENDED else CallEndReason.ANSWERED_ELSEWHERE
            direction == Direction.OUTGOING && state == CallState.ENDED -> endReasonForSystemEnd(call) ?: CallEndReason.REMOTE_ENDED
            direction == Direction.INCOMING -> endReasonForFinal(state)
            state == CallState.UNANSWERED -> CallEndReason.UNANSWERED
            state == CallState.FAILED -> CallEndReason.FAILED
            else -> CallEndReason.REMOTE_ENDED
        }
    }

    /**
     * The reason `call.ended` gives: `remote_ended` for the caller and the device that answered (or the server's own
     * reason); `answered_elsewhere` for the callee's other devices, which missed `call.answered_elsewhere`. A call this
     * device does not know counts as incoming: only its push can still come.
     */
    private fun endedReason(call: Call): CallEndReason {
        val incoming = (callTable[call.callId]?.direction ?: Direction.INCOMING) == Direction.INCOMING
        val answered = call.acceptedDeviceId
        if (incoming && answered != null && answered != deviceId) return CallEndReason.ANSWERED_ELSEWHERE
        return endReasonForSystemEnd(call) ?: CallEndReason.REMOTE_ENDED
    }

    // Clock

    /** Takes one server-minus-phone sample, ms: close to the offset it refines it (the larger wins), far off it replaces it. */
    private fun learnClock(sampleMs: Long): List<PhoneCallEffect> {
        val current = clockOffsetMs
        val next = if (current != null && Math.abs(sampleMs - current) <= CLOCK_SAMPLE_TOLERANCE_MS) Math.max(current, sampleMs)
            else sampleMs
        if (next == current) return emptyList()
        clockOffsetMs = next
        return listOf(PhoneCallEffect.SaveClockOffset(next))
    }

    /** Constants and the reason tables shared with the CallCoordinator (docs/test-vectors.md "The numbers the vectors rely on"). */
    companion object {
        /**
         * The tones a call may play: RFC 4733 §3.2's events 0–15, the twelve keys of a phone's keypad and the four
         * column keys `A`–`D`, which Telecom's `onPlayDtmfTone` and CallKit's `CXPlayDTMFCallAction` both carry.
         * Swift: `PhoneCallMachine.dtmfDigits`.
         */
        const val DTMF_DIGITS = "0123456789*#ABCD"

        /**
         * The group a call event shows, as its push would name it: every leg counted, the others (not the callee
         * reading it) named in the order rung, at most [MAXIMUM_NAMED_OTHERS]; null for a 1:1 call.
         */
        @JvmStatic fun groupOf(call: Call): PushGroup? {
            val legs = call.legs ?: return null
            val others = legs.map { it.user }.filter { it.id != call.callee.id }
            return PushGroup(legs.size, others.take(MAXIMUM_NAMED_OTHERS))
        }

        /** The most other callees a push names (the server's rule; Swift: `VoIPPush.Body.maximumNamedOthers`). */
        const val MAXIMUM_NAMED_OTHERS = 8

        /** Ms past a call's deadline before the device ends it on its own, if the server's `call.unanswered` has not come. */
        const val DEADLINE_GRACE_MS: Long = 2000L
        /** How many ended-before-seen calls (and answered-before-seen outgoing calls) are remembered; the oldest go first. */
        const val ENDED_UNSEEN_LIMIT: Int = 64
        /** Ms an ended-before-seen call is remembered: well past the longest ring, after which APNs/FCM dropped its push. */
        const val ENDED_UNSEEN_LIFETIME_MS: Long = 600_000L
        /**
         * Ms two clock samples may differ and still count as the same clock (the larger, the least delayed, wins);
         * more means the phone's clock was changed. Covers an HTTP `Date` header's whole seconds plus a slow answer.
         */
        const val CLOCK_SAMPLE_TOLERANCE_MS: Long = 2000L

        /**
         * The reason for a call the server ended itself ([Call.endReason]): `failed` when the connection was lost,
         * `remote_ended` for any other system reason; null when a participant ended it.
         */
        @JvmStatic fun endReasonForSystemEnd(call: Call): CallEndReason? {
            val reason = call.endReason ?: return null
            return if (reason == SystemEndReason.CONNECTION_LOST) CallEndReason.FAILED else CallEndReason.REMOTE_ENDED
        }

        /** The reason a callee device shows for a call that reached [state] without it. */
        @JvmStatic fun endReasonForFinal(state: CallState): CallEndReason = when (state) {
            CallState.UNANSWERED -> CallEndReason.UNANSWERED
            CallState.ACCEPTED -> CallEndReason.ANSWERED_ELSEWHERE
            CallState.DECLINED -> CallEndReason.DECLINED_ELSEWHERE
            CallState.FAILED -> CallEndReason.FAILED
            else -> CallEndReason.REMOTE_ENDED
        }

        /** The reason of the four endings a callee device may hear of before the call (event, push or data message). */
        private fun updateEndReason(type: EventType): CallEndReason? = when (type) {
            EventType.CALL_CANCELLED -> CallEndReason.REMOTE_ENDED
            EventType.CALL_ANSWERED_ELSEWHERE -> CallEndReason.ANSWERED_ELSEWHERE
            EventType.CALL_DECLINED_ELSEWHERE -> CallEndReason.DECLINED_ELSEWHERE
            EventType.CALL_UNANSWERED -> CallEndReason.UNANSWERED
            else -> null
        }
    }
}
