package dev.ringer.android

import android.telecom.CallAudioState
import android.telecom.CallEndpoint
import android.telecom.Connection

/**
 * One Ringer call as a self-managed Telecom `Connection`, keyed by the server's call id. It only forwards
 * Telecom's callbacks to [TelecomCallUi], which owns the call map and talks to the core
 * (docs/android-integration.md, "The user's actions").
 *
 * @property callId the server's call id.
 * @property incoming true for a call reported by `reportIncomingCall`, false for one this phone dialled.
 */
class RingerConnection(val callId: String, val incoming: Boolean, private val owner: TelecomCallUi) : Connection() {
    init {
        // "Apps are responsible for setting CAPABILITY_SUPPORT_HOLD and CAPABILITY_HOLD" (source.android.com,
        // third-party call apps): without them Telecom disconnects this call when the user answers a SIM call.
        connectionCapabilities = CAPABILITY_HOLD or CAPABILITY_SUPPORT_HOLD
    }

    @Volatile private var answering = false

    /** Whether the user answered it (the answer may still wait for the server). */
    val isAnswered: Boolean get() = answering

    /** Returns true the first time only, so an answer from Telecom and one from the notification count once. */
    @Synchronized internal fun beginAnswer(): Boolean {
        if (answering) return false
        answering = true
        return true
    }

    /** Telecom (a headset, a car, the system UI) answered. */
    override fun onAnswer() { owner.answer(callId) }

    /** Telecom answered with a video state; the call's media decides video itself. */
    override fun onAnswer(videoState: Int) { owner.answer(callId) }

    /** The user declined the ringing call through Telecom. */
    override fun onReject() { owner.decline(callId) {} }

    /** Telecom asked to hang up (or cancel an outgoing call). */
    override fun onDisconnect() { owner.hangUp(callId) {} }

    /** Telecom aborted a call it could not complete. */
    override fun onAbort() { owner.hangUp(callId) {} }

    /** Telecom holds the call: the user answered another (a SIM call), or pressed hold on a car or a watch. */
    override fun onHold() { owner.hold(callId, true) }

    /** Telecom resumes the held call. */
    override fun onUnhold() { owner.hold(callId, false) }

    /**
     * A key pressed on a system call surface (a car, a watch, a Bluetooth keypad): Telecom passes one tone per key and
     * the core passes it to the app's media, which sends it; how long it sounds is the media's (RFC 4733 events carry
     * their own duration), so [onStopDtmfTone] changes nothing.
     */
    override fun onPlayDtmfTone(c: Char) { owner.dtmf(callId, c.toString()) }

    /** A self-managed call's tone is the app's media, which ends it itself. */
    override fun onStopDtmfTone() {}

    /** API 34: the call's audio moved (the user picked a device on a system surface, a headset came or went). */
    override fun onCallEndpointChanged(callEndpoint: CallEndpoint) { owner.callEndpointChanged(callEndpoint) }

    /** API 34: the devices the call's audio can go to changed. */
    override fun onAvailableCallEndpointsChanged(availableEndpoints: List<CallEndpoint>) {
        owner.availableCallEndpointsChanged(availableEndpoints)
    }

    /** API 34: Telecom's mute changed (a headset's mute button); the app's media follows the core's `MutedChanged`. */
    override fun onMuteStateChanged(isMuted: Boolean) { owner.muteStateChanged(callId, isMuted) }

    /** Below API 34: the route and the routes supported (from 34 the endpoint callbacks say it). */
    @Suppress("OverridingDeprecatedMember", "DEPRECATION")
    override fun onCallAudioStateChanged(state: CallAudioState) { owner.callAudioStateChanged(callId, state) }

    /** Android: a self-managed app shows its own incoming-call UI when Telecom says so (API 26). */
    override fun onShowIncomingCallUi() { owner.showIncomingCallUi(callId) }

    /**
     * Volume-down while ringing, or `TelecomManager.silenceRinger()` (API 29): a self-managed app silences its own
     * ringtone; the call keeps ringing on screen (Android: `Connection.onSilence`).
     */
    override fun onSilence() { owner.silenceRinger(callId) }

    /**
     * Every state change (also those [TelecomCallUi] made): the calls' audio runs while a connection is `STATE_ACTIVE`
     * (answer confirmed, outgoing call connected, resumed), so the owner tells the core when it starts and stops.
     */
    override fun onStateChanged(state: Int) { owner.connectionStateChanged() }
}
