package dev.ringer.kit

/** Who is logged in on the device, as [PhoneCallMachine] needs it to judge a push. */
sealed class PhoneAccount {
    /** The app is still launching: nobody is known yet, requests wait (a push still rings). */
    object Launching : PhoneAccount() {
        /** `Launching`. */
        override fun toString(): String = "Launching"
    }

    /** A user is logged in; [userId] is null when the token names none the device can read. */
    data class LoggedIn(val userId: String?) : PhoneAccount()

    /** Nobody is logged in: pushes are refused. */
    object LoggedOut : PhoneAccount() {
        /** `LoggedOut`. */
        override fun toString(): String = "LoggedOut"
    }
}

/**
 * What became of a ringing push (the push handler's answer and an observation). [rawValue] is the spelling
 * of docs/test-vectors.md (`already_ended`). Swift: `CallCoordinator.PushDisposition`.
 */
enum class PushDisposition(val rawValue: String) {
    /** A new call is ringing. */
    RINGING("ringing"),
    /** The call was already on screen (it came by the event stream first): nothing new rings. */
    DUPLICATE("duplicate"),
    /** The push could not be read (reported and ended `failed` where every push must be reported). */
    UNREADABLE("unreadable"),
    /** The ring deadline had passed on the server's clock (the phone was off). */
    EXPIRED("expired"),
    /** The call is already over. */
    ALREADY_ENDED("already_ended"),
    /** No user is logged in on this device. */
    LOGGED_OUT("logged_out"),
    /** The push names another user than the one logged in now (the phone changed hands in flight). */
    OTHER_USER("other_user")
}

/**
 * A ringing push as [PhoneCallMachine] reads it: a PushKit VoIP push or an FCM data message, already parsed
 * ([RingerPushBody]). Times are Unix ms on the server's clock.
 * @property callId the call id, a lowercase UUID (use [CallIds.normalize] or [fromBody]).
 * @property calleeId the user the call is for, when the push says.
 * @property waiting the push's `waiting`: the call rings while this user is in another call.
 * @throws IllegalArgumentException from the constructor when [callId] is not a lowercase UUID.
 */
data class IncomingPush(
    val callId: String,
    val caller: Party,
    val calleeId: String?,
    val hasVideo: Boolean,
    val sentAtMs: Long,
    val expiresAtMs: Long,
    val group: PushGroup? = null,
    val waiting: Boolean = false
) {
    init {
        require(CallIds.isUuid(callId) && CallIds.asciiLowercase(callId) == callId) { "call id is not a lowercase UUID" }
    }

    /** Building. */
    companion object {
        /**
         * The push a parsed `ringer` body describes, its call id lowercased.
         * @throws RingerWireException when the body is not `call.incoming` or its call id is not a UUID.
         */
        @JvmStatic fun fromBody(body: RingerPushBody): IncomingPush {
            if (body.type != EventType.CALL_INCOMING) throw RingerWireException("RingerPushBody.type is ${body.type.rawValue}")
            val callId = CallIds.normalize(body.callId) ?: throw RingerWireException("RingerPushBody.call_id is not a UUID")
            return IncomingPush(callId, body.caller, body.calleeId, body.hasVideo, body.sentAtMs, body.expiresAtMs, body.group,
                body.waiting == true)
        }
    }
}

/**
 * Who changed a call's hold or mute, or played its keypad tones. Swift: `ControlSource`.
 * @property rawValue the vectors' spelling (`system`, `app`).
 */
enum class ControlSource(val rawValue: String) {
    /**
     * The system did it and the call is now so: Telecom called `Connection.onHold()`/`onUnhold()` or reported the mute
     * state, Core-Telecom `onSetInactive`/`onSetActive`, CallKit performed `CXSetHeldCallAction`/`CXSetMutedCallAction`.
     */
    SYSTEM("system"),
    /**
     * The app asked (`CallCoordinator.setHeld`/`setMuted`): the machine asks the native call UI, whose answer comes
     * back as a [SYSTEM] change, so the system's screen and the app never disagree.
     */
    APP("app")
}

/**
 * Something that happened to a device's calls; fed to [PhoneCallMachine.handle] with the phone's clock
 * reading. Call ids are lowercase. Swift: `PhoneCallInput`.
 */
sealed class PhoneCallInput {
    /**
     * A ringing push arrived. [reportsEveryPush] is PushKit's rule (Apple: PushKit, iOS 13+: every VoIP push is
     * reported, one that cannot ring is reported and ended at once); false on Android, where only a push that
     * rings reaches the call UI.
     */
    data class IncomingPush(val push: dev.ringer.kit.IncomingPush, val account: PhoneAccount, val reportsEveryPush: Boolean) :
        PhoneCallInput()

    /** A push that could not be read as a ringing push. */
    data class UnreadablePush(val reportsEveryPush: Boolean) : PhoneCallInput()

    /** `call.incoming` on the event stream. */
    data class IncomingEvent(val call: Call) : PhoneCallInput()

    /** The call UI answered a [PhoneCallEffect.ReportIncoming]: [accepted] false when the system refused to ring. */
    data class ReportFinished(val callId: String, val accepted: Boolean) : PhoneCallInput()

    /** Any event of the stream (`call.accepted`, `call.cancelled`, `call.ended`, …; `call.incoming` too). */
    data class Event(val type: EventType, val call: Call) : PhoneCallInput()

    /**
     * An FCM data message (Android) or alert/background push (iOS) saying a call changed: `call.cancelled`,
     * `call.answered_elsewhere`, `call.declined_elsewhere` or `call.unanswered`.
     */
    data class UpdatePush(val type: EventType, val callId: String) : PhoneCallInput()

    /**
     * The user answered: on the native UI (`Connection.onAnswer`, `CXAnswerCallAction`), from the ringing
     * notification, or in the app's own screen through the CallCoordinator. A second answer of a call already
     * answering waits for the same confirmation; one of a call already active is fulfilled at once.
     */
    data class Answer(val callId: String) : PhoneCallInput()

    /** The server accepted this device's answer. */
    data class AnswerConfirmed(val callId: String) : PhoneCallInput()

    /**
     * The server refused the answer with [problem]. A transport failure, a 5xx, 408 or 429 is no refusal: the owner
     * keeps sending until the ring deadline, which ends an unconfirmed answer as [CallEndReason.ANSWER_NOT_DELIVERED].
     */
    data class AnswerRefused(val callId: String, val problem: Problem) : PhoneCallInput()

    /** The server refused the ringing acknowledgement with [problem] (the call is over or not this user's). */
    data class RingingRefused(val callId: String, val problem: Problem) : PhoneCallInput()

    /**
     * The server refused a stored hang-up of [kind] with [problem], which retrying cannot change (a 4xx other than
     * 408 and 429): the hang-up is settled; the machine says whether another must follow.
     */
    data class HangUpRefused(val callId: String, val kind: PendingCallAction.Kind, val problem: Problem) : PhoneCallInput()

    /** The user ended or declined on the native UI (`Connection.onDisconnect`/`onReject`, `CXEndCallAction`). */
    data class End(val callId: String) : PhoneCallInput()

    /** The native call UI dropped every call (Apple: `providerDidReset(_:)`). */
    object EndAll : PhoneCallInput() {
        /** `EndAll`. */
        override fun toString(): String = "EndAll"
    }

    /** This device placed a call; the server answered `POST /v1/calls` with it. */
    data class OutgoingPlaced(val call: Call) : PhoneCallInput()

    /** The call as the server reads it now (`GET /v1/calls/{id}`, on a refresh). */
    data class CallRead(val call: Call) : PhoneCallInput()

    /** The server refused a keepalive; [call] is the call as read after, if that worked. */
    data class KeepaliveRefused(val callId: String, val call: Call?) : PhoneCallInput()

    /** A [PhoneCallEffect.ArmDeadline] timer fired. */
    data class DeadlineReached(val callId: String) : PhoneCallInput()

    /** Someone logged in or out. */
    data class AccountChanged(val account: PhoneAccount) : PhoneCallInput()

    /** The server's clock read [serverTimeMs] (Unix ms) when this input's phone time was read (`stream.ready`). */
    data class ServerTime(val serverTimeMs: Long) : PhoneCallInput()

    /**
     * The phone's wall clock was set since the offset was learned: the offset is forgotten, so pushes ring until
     * a new sample arrives. The owner notices it as a boot time (`System.currentTimeMillis()` minus
     * `SystemClock.elapsedRealtime()`) that moved by more than 2 s.
     */
    object PhoneClockChanged : PhoneCallInput() {
        /** `PhoneClockChanged`. */
        override fun toString(): String = "PhoneClockChanged"
    }

    /**
     * The app's process started, with a machine built from what the previous process kept
     * ([PhoneCallMachine.memory]): answers the server never confirmed are shown and sent again (before their
     * deadline) or ended as not delivered (after it). Fed once, right after the machine is created. Swift: `launched`.
     */
    object Launched : PhoneCallInput() {
        /** `Launched`. */
        override fun toString(): String = "Launched"
    }

    /**
     * Hold or resume an answered call. From [ControlSource.SYSTEM] it is the call's new state; from [ControlSource.APP]
     * a request the machine passes to the call UI. Only an active call is held. Swift: `setHeld(callID:held:by:)`.
     */
    data class SetHeld(val callId: String, val held: Boolean, val by: ControlSource) : PhoneCallInput()

    /**
     * Mute or unmute the microphone of a call not over, from the system (its new state) or the app (a request passed
     * to the call UI). Swift: `setMuted(callID:muted:by:)`.
     */
    data class SetMuted(val callId: String, val muted: Boolean, val by: ControlSource) : PhoneCallInput()

    /**
     * Play keypad tones ([digits], each one of [PhoneCallMachine.DTMF_DIGITS]) on the call that has the audio. From the
     * system the user pressed them (Telecom's `onPlayDtmfTone`, CallKit's `CXPlayDTMFCallAction`) and the app's media
     * sends them; from the app a request passed to the call UI. Refused (no effect) for a call not active, held, or
     * with digits outside the set. Swift: `playDTMF(callID:digits:by:)`.
     */
    data class PlayDtmf(val callId: String, val digits: String, val by: ControlSource) : PhoneCallInput()
}
