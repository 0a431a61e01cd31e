package dev.ringer.reactnative

import dev.ringer.kit.AudioRoutes

/**
 * What the native half observed, as [EventTranslator] takes it: the SDK's `CallCoordinator.Observation`s, the event
 * stream's status, the readiness pre-flight and a placed call, named as in TestVectors/react-native/events.json
 * (Swift: the same cases in react-native/ios). Pure values: no Android, no React Native.
 */
sealed class Observed {
    /** A ringing message was handled (`push_reported`); [disposition] is the SDK's raw value. */
    data class PushReported(val callId: String?, val disposition: String) : Observed()

    /** An incoming call rings on this phone (`ringing`). */
    data class Ringing(val callId: String) : Observed()

    /** The server confirmed this phone's answer (`answered`). */
    data class Answered(val callId: String, val media: Media) : Observed()

    /** The callee answered an outgoing call (`outgoing_answered`). */
    data class OutgoingAnswered(val callId: String, val media: Media) : Observed()

    /** Media may start now (`media_can_start`): answered and audio active. */
    data class MediaCanStart(val callId: String, val media: Media) : Observed()

    /** A call ended here (`ended`); [reason] is the SDK's `CallEndReason` raw value, null when this user ended it. */
    data class Ended(val callId: String, val reason: String?) : Observed()

    /**
     * A server event (`event`): its [type] (`call.ringing`…) and what it says of the call: its [state] and the
     * server's [endReason], both raw values.
     */
    data class ServerEvent(val type: String, val callId: String, val state: String, val endReason: String?) : Observed()

    /** An API request failed for good (`request_failed`); [detail] never holds a token. */
    data class RequestFailed(val callId: String, val detail: String) : Observed()

    /** The event stream's status changed (`stream_status`): connected, lost, restored, closed, replaced, unauthorized. */
    data class StreamStatus(val status: String) : Observed()

    /** The readiness pre-flight's problems changed (`readiness`). */
    data class Readiness(val problems: List<String>) : Observed()

    /** The app placed a call that rings (`call_started`: startCall resolved with a ringing call). */
    data class CallStarted(val callId: String) : Observed()

    /**
     * A group call's legs changed (`participants_changed`): each person rung, in order, and their leg's state (a raw
     * value of the server's).
     */
    data class ParticipantsChanged(val callId: String, val legs: List<Participant>) : Observed()

    /** The call was held or resumed (`held_changed`). */
    data class HeldChanged(val callId: String, val held: Boolean) : Observed()

    /** The call was muted or unmuted (`muted_changed`). */
    data class MutedChanged(val callId: String, val muted: Boolean) : Observed()

    /** Keypad tones to play on the call (`dtmf`). */
    data class Dtmf(val callId: String, val digits: String) : Observed()

    /** The audio route or the outputs to choose from changed (`audio_route_changed`). */
    data class AudioRouteChanged(val routes: AudioRoutes) : Observed()

    /**
     * The user tapped one of the app's calls in the phone's call history and asks to call [userId] back
     * (`call_back_requested`), with video when [hasVideo]: on Android the system dialer's call log (Android 16,
     * Core-Telecom's calls, `RingerPhone`'s `callBackRequested`), on iOS Recents.
     */
    data class CallBackRequested(val userId: String, val hasVideo: Boolean) : Observed()

    /** One person of a group call: who and where their leg is. */
    data class Participant(val user: CallInfo.Peer, val state: String)

    /** A media session: where to connect and the credential (never logged). */
    data class Media(val url: String, val token: String) {
        override fun toString(): String = "Media(url=$url, token=<redacted>)"
    }
}
