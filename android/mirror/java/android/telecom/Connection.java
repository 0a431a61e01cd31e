// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

import android.net.Uri;
import android.os.OutcomeReceiver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Mirror of {@code android.telecom.Connection}: setters record; {@code setState}'s effect on
 * {@link #onStateChanged(int)} is as on a device. Telecom's calls into the app (onAnswer, onReject, ...) are
 * made by the tests.
 */
public abstract class Connection {
    public static final int STATE_INITIALIZING = 0;
    public static final int STATE_NEW = 1;
    public static final int STATE_RINGING = 2;
    public static final int STATE_DIALING = 3;
    public static final int STATE_ACTIVE = 4;
    public static final int STATE_HOLDING = 5;
    public static final int STATE_DISCONNECTED = 6;
    public static final int STATE_PULLING_CALL = 7;
    /** API 26. */
    public static final int PROPERTY_SELF_MANAGED = 1 << 7;
    /** The call can be put on hold (API 21). */
    public static final int CAPABILITY_HOLD = 0x00000001;
    /** The call supports holding at all, shown even while it cannot be held now (API 21). */
    public static final int CAPABILITY_SUPPORT_HOLD = 0x00000002;

    private int mState = STATE_NEW;
    private int mConnectionProperties;
    private int mConnectionCapabilities;
    private Uri mAddress;
    private int mAddressPresentation;
    private String mCallerDisplayName;
    private int mCallerDisplayNamePresentation;
    private int mVideoState;
    private boolean mAudioModeIsVoip;
    private DisconnectCause mDisconnectCause;
    /** Mirror only: whether destroy() was called, and every state set, in order. */
    public boolean mirrorDestroyed;
    public final List<Integer> mirrorStates = new ArrayList<Integer>();
    /** Endpoints asked for with {@link #requestCallEndpointChange}, in order. */
    public final List<CallEndpoint> mirrorEndpointRequests = new ArrayList<CallEndpoint>();
    /** Routes asked for with {@link #setAudioRoute}, in order. */
    public final List<Integer> mirrorAudioRoutes = new ArrayList<Integer>();

    public Connection() {}

    public static Connection createFailedConnection(DisconnectCause cause) {
        Connection failed = new Connection() {};
        failed.setDisconnected(cause);
        return failed;
    }

    public final int getState() { return mState; }
    public final int getConnectionProperties() { return mConnectionProperties; }
    public final void setConnectionProperties(int connectionProperties) { mConnectionProperties = connectionProperties; }
    public final int getConnectionCapabilities() { return mConnectionCapabilities; }
    public final void setConnectionCapabilities(int connectionCapabilities) { mConnectionCapabilities = connectionCapabilities; }
    public final Uri getAddress() { return mAddress; }
    public final int getAddressPresentation() { return mAddressPresentation; }
    public final void setAddress(Uri address, int presentation) { mAddress = address; mAddressPresentation = presentation; }
    public final String getCallerDisplayName() { return mCallerDisplayName; }
    public final int getCallerDisplayNamePresentation() { return mCallerDisplayNamePresentation; }
    public final void setCallerDisplayName(String callerDisplayName, int presentation) {
        mCallerDisplayName = callerDisplayName;
        mCallerDisplayNamePresentation = presentation;
    }
    public final int getVideoState() { return mVideoState; }
    public final void setVideoState(int videoState) { mVideoState = videoState; }
    public final boolean getAudioModeIsVoip() { return mAudioModeIsVoip; }
    public final void setAudioModeIsVoip(boolean isVoip) { mAudioModeIsVoip = isVoip; }
    public final DisconnectCause getDisconnectCause() { return mDisconnectCause; }

    public final void setRinging() { setState(STATE_RINGING); }
    public final void setDialing() { setState(STATE_DIALING); }
    public final void setActive() { setState(STATE_ACTIVE); }
    public final void setOnHold() { setState(STATE_HOLDING); }
    public final void setDisconnected(DisconnectCause disconnectCause) {
        mDisconnectCause = disconnectCause;
        setState(STATE_DISCONNECTED);
    }
    public final void destroy() { mirrorDestroyed = true; }

    private void setState(int state) {
        if (mState == STATE_DISCONNECTED && mState != state) return; // as on a device: a disconnected connection stays so
        mState = state;
        mirrorStates.add(state);
        onStateChanged(state);
    }

    public void onStateChanged(int state) {}
    public void onAnswer() {}
    public void onAnswer(int videoState) { onAnswer(); }
    public void onReject() {}
    public void onDisconnect() {}
    public void onAbort() {}
    /** Telecom asks to hold the call (the user answered another call, or pressed hold on a car or watch). */
    public void onHold() {}
    /** Telecom asks to resume the held call. */
    public void onUnhold() {}
    /** API 26: self-managed calls show their own incoming-call UI when Telecom says so. */
    public void onShowIncomingCallUi() {}
    /** API 29: Telecom asks to silence the ringer (volume-down while ringing, or TelecomManager.silenceRinger()). */
    public void onSilence() {}
    /** Deprecated in API 34 for the endpoint callbacks, which Telecom calls too from then on. */
    @Deprecated public void onCallAudioStateChanged(CallAudioState state) {}
    /** API 34. */
    public void onCallEndpointChanged(CallEndpoint callEndpoint) {}
    /** API 34. */
    public void onAvailableCallEndpointsChanged(List<CallEndpoint> availableEndpoints) {}
    /** API 34. */
    public void onMuteStateChanged(boolean isMuted) {}
    /** Deprecated in API 34 for {@link #requestCallEndpointChange}. Mirror body: recorded. */
    @Deprecated public final void setAudioRoute(int route) { mirrorAudioRoutes.add(route); }
    /** API 34. Mirror body: recorded; Telecom's answer is the test's to give. */
    public final void requestCallEndpointChange(CallEndpoint endpoint, Executor executor,
            OutcomeReceiver<Void, CallEndpointException> callback) {
        mirrorEndpointRequests.add(endpoint);
    }
    /** API 23: a DTMF tone is to be played (a key pressed on an in-call surface). */
    public void onPlayDtmfTone(char c) {}
    /** Android: stop the tone {@link #onPlayDtmfTone} started. */
    public void onStopDtmfTone() {}
}
