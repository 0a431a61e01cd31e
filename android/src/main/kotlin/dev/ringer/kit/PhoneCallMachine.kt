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
 * - Staleness is judged on the server's clock only, through the offset learned from it ([clockOffsetMs]);
 *   while no offset is known a push rings.
 *
 * Not thread-safe: the owner serialises calls (one lock or one coroutine). [copy] gives an independent machine,
 * as the Swift value type would.
 *
 * @param deviceId this device's id (`accepted_device_id` equal to it means "answered here").
 * @param clockOffsetMs the server-minus-phone offset kept from an earlier launch, ms; null if none.
 */
class PhoneCallMachine(val deviceId: String, clockOffsetMs: Long? = null) {
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
     * @property expiresAtMs the ring deadline, server clock, Unix ms.
     * @property localDeadlineMs the ring deadline on the phone's clock, as well as the device can tell it.
     * @property answerPending true while a native answer action waits for the server.
     * @property endReason why it ended remotely; null while up or when the local user ended it.
     */
    data class PhoneCall(
        val callId: String,
        val calleeId: String?,
        val direction: Direction,
        val phase: Phase,
        val expiresAtMs: Long,
        val localDeadlineMs: Long,
        val answerPending: Boolean,
        val endReason: CallEndReason? = null
    )

    /** A call that ended before the device saw it: how it ended, and when the device learned it (phone clock, ms). */
    data class EndedUnseen(val reason: CallEndReason, val learnedAtMs: Long)

    private val callTable = HashMap<String, PhoneCall>()
    private val endedUnseenTable = HashMap<String, EndedUnseen>()
    private val answeredUnseenTable = HashMap<String, Long>()

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
            is PhoneCallInput.ReportFinished -> reportFinished(input.callId, input.accepted)
            is PhoneCallInput.Event -> event(input.type, input.call, atMs)
            is PhoneCallInput.UpdatePush -> {
                val reason = updateEndReason(input.type)
                if (reason == null) emptyList() else endRemotely(input.callId, reason, true, atMs)
            }
            is PhoneCallInput.Answer -> answer(input.callId)
            is PhoneCallInput.AnswerConfirmed -> answerConfirmed(input.callId)
            is PhoneCallInput.AnswerRefused -> {
                // The answer lost to whatever ended the call first: say which, as the matching event would have.
                val problem = input.problem
                val callState = problem?.callState
                val reason = when {
                    problem != null && problem.type == ProblemType.ANSWERED_ELSEWHERE.rawValue -> CallEndReason.ANSWERED_ELSEWHERE
                    callState != null -> endReasonForFinal(callState)
                    else -> CallEndReason.REMOTE_ENDED
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
            is PhoneCallInput.End -> endLocally(input.callId)
            is PhoneCallInput.EndAll -> liveCallIds.flatMap { endLocally(it) }
            is PhoneCallInput.OutgoingPlaced -> outgoingPlaced(input.call, atMs)
            is PhoneCallInput.CallRead -> {
                val call = input.call
                val effects = ArrayList<PhoneCallEffect>()
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
            is PhoneCallInput.DeadlineReached ->
                if (callTable[input.callId]?.phase != Phase.RINGING) emptyList()
                else endRemotely(input.callId, CallEndReason.UNANSWERED, false, atMs)
            is PhoneCallInput.AccountChanged -> {
                val stale = callTable.filter { (_, call) ->
                    call.direction == Direction.INCOMING && call.phase == Phase.RINGING && refuses(input.account, call.calleeId)
                }.keys.sorted()
                stale.flatMap { endRemotely(it, CallEndReason.FAILED, false, atMs) }
            }
            is PhoneCallInput.ServerTime -> learnClock(input.serverTimeMs - atMs)
            is PhoneCallInput.PhoneClockChanged -> {
                clockOffsetMs = null
                emptyList()
            }
        }
    }

    // Incoming

    private fun incomingPush(push: IncomingPush, account: PhoneAccount, reportsEveryPush: Boolean, atMs: Long): List<PhoneCallEffect> {
        val callId = push.callId
        val report = IncomingCallReport(callId, push.caller, push.hasVideo)
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
            // Its end came first: never on screen, so it is reported under its own id and ended at once.
            callTable[callId] = PhoneCall(callId, push.calleeId, Direction.INCOMING, Phase.ENDED, push.expiresAtMs, atMs,
                false, ended.reason)
            disposition = PushDisposition.ALREADY_ENDED
            if (reportsEveryPush) effects.add(PhoneCallEffect.ReportAndEnd(callId, push.caller, ended.reason))
        } else if (isPast(push.expiresAtMs, atMs)) {
            disposition = PushDisposition.EXPIRED
            if (reportsEveryPush) effects.add(PhoneCallEffect.ReportAndEnd(callId, push.caller, CallEndReason.UNANSWERED))
        } else if (refuses(account, push.calleeId)) {
            disposition = if (account == PhoneAccount.LoggedOut) PushDisposition.LOGGED_OUT else PushDisposition.OTHER_USER
            if (reportsEveryPush) effects.add(PhoneCallEffect.ReportAndEnd(callId, push.caller, CallEndReason.FAILED))
        } else {
            callTable[callId] = PhoneCall(callId, push.calleeId, Direction.INCOMING, Phase.RINGING, push.expiresAtMs,
                localDeadline(push.expiresAtMs, push.expiresAtMs - push.sentAtMs, atMs), false)
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
                false, ended.reason)
            return emptyList()
        }
        if (isPast(call.expiresAtMs, atMs)) return emptyList()
        callTable[callId] = PhoneCall(callId, call.callee.id, Direction.INCOMING, Phase.RINGING, call.expiresAtMs,
            localDeadline(call.expiresAtMs, call.expiresAtMs - call.createdAtMs, atMs), false)
        return listOf(PhoneCallEffect.ReportIncoming(callId, IncomingCallReport(callId, call.caller, call.hasVideo)))
    }

    private fun reportFinished(callId: String, accepted: Boolean): List<PhoneCallEffect> {
        if (!accepted) {
            // The system refused to ring: forget it so a later push can ring.
            callTable.remove(callId)
            return emptyList()
        }
        val call = callTable[callId] ?: return emptyList()
        return listOf(PhoneCallEffect.Ringing(callId), PhoneCallEffect.ArmDeadline(callId, call.localDeadlineMs + DEADLINE_GRACE_MS),
            PhoneCallEffect.SendRinging(callId))
    }

    private fun answer(callId: String): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.direction != Direction.INCOMING || call.phase != Phase.RINGING) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ANSWERING, answerPending = true)
        return listOf(PhoneCallEffect.SendAccept(callId))
    }

    private fun answerConfirmed(callId: String): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.phase != Phase.ANSWERING) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ACTIVE, answerPending = false)
        return listOf(PhoneCallEffect.CompleteAnswer(callId, true), PhoneCallEffect.StartKeepalive(callId),
            PhoneCallEffect.Answered(callId))
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
        callTable[callId] = PhoneCall(callId, null, Direction.OUTGOING, Phase.RINGING, call.expiresAtMs,
            call.expiresAtMs - (clockOffsetMs ?: 0L), false)
        // The socket can outrun the POST's answer (a retried POST, a slow network): what it already said holds.
        val ended = endedUnseenTable.remove(callId)
        if (ended != null) {
            answeredUnseenTable.remove(callId)
            return endRemotely(callId, ended.reason, false, atMs)
        }
        if (answeredUnseenTable.remove(callId) != null) return outgoingAnswered(callId)
        return emptyList()
    }

    // Endings

    /**
     * Ends a call for a reason the local user did not cause, exactly once. The end goes to the UI before the pending
     * answer's failure: a call UI that ends a call whose answer failed would otherwise show a failure, not this reason.
     */
    private fun endRemotely(callId: String, reason: CallEndReason, rememberIfUnknown: Boolean, atMs: Long): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null) {
            if (rememberIfUnknown) {
                endedUnseenTable[callId] = EndedUnseen(reason, atMs)
                keepNewest(endedUnseenTable) { it.learnedAtMs }
            }
            return emptyList()
        }
        if (call.phase == Phase.ENDED) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ENDED, endReason = reason, answerPending = false)
        val effects = ArrayList<PhoneCallEffect>()
        effects.add(PhoneCallEffect.ReportEnded(callId, reason))
        if (call.answerPending) effects.add(PhoneCallEffect.CompleteAnswer(callId, false))
        effects.add(PhoneCallEffect.Ended(callId, reason))
        return effects
    }

    private fun endLocally(callId: String): List<PhoneCallEffect> {
        val call = callTable[callId]
        if (call == null || call.phase == Phase.ENDED) return emptyList()
        callTable[callId] = call.copy(phase = Phase.ENDED, answerPending = false)
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

    /** Drops what was learned [ENDED_UNSEEN_LIFETIME_MS] or more before [atMs], from both memories. */
    private fun forgetOld(atMs: Long) {
        endedUnseenTable.entries.removeAll { atMs - it.value.learnedAtMs >= ENDED_UNSEEN_LIFETIME_MS }
        answeredUnseenTable.entries.removeAll { atMs - it.value >= ENDED_UNSEEN_LIFETIME_MS }
    }

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
