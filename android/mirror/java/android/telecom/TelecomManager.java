// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

import android.net.Uri;
import android.os.Bundle;
import java.util.ArrayList;
import java.util.List;

/** Mirror of {@code android.telecom.TelecomManager}: requests are recorded for the tests to answer. */
public class TelecomManager {
    public static final String EXTRA_INCOMING_CALL_EXTRAS = "android.telecom.extra.INCOMING_CALL_EXTRAS";
    public static final String EXTRA_OUTGOING_CALL_EXTRAS = "android.telecom.extra.OUTGOING_CALL_EXTRAS";
    public static final String EXTRA_PHONE_ACCOUNT_HANDLE = "android.telecom.extra.PHONE_ACCOUNT_HANDLE";
    public static final String EXTRA_START_CALL_WITH_VIDEO_STATE = "android.telecom.extra.START_CALL_WITH_VIDEO_STATE";
    public static final int PRESENTATION_ALLOWED = 1;
    /** API 36: the system dialer's call back of a call in its log (an activity action). */
    public static final String ACTION_CALL_BACK = "android.telecom.action.CALL_BACK";
    /** API 36: with ACTION_CALL_BACK, the call's id as CallControl#getCallId() gave it (a String). */
    public static final String EXTRA_UUID = "android.telecom.extra.UUID";

    /** Mirror only: what the app asked for, and whether MANAGE_OWN_CALLS is granted. */
    public final List<PhoneAccount> mirrorRegistered = new ArrayList<PhoneAccount>();
    public final List<Bundle> mirrorIncomingExtras = new ArrayList<Bundle>();
    public final List<Uri> mirrorPlacedCalls = new ArrayList<Uri>();
    public final List<Bundle> mirrorPlacedExtras = new ArrayList<Bundle>();
    public volatile boolean mirrorManageOwnCallsGranted = true;
    /** Mirror only: told of each accepted addNewIncomingCall, as the system's Telecom would then bind the service. */
    public volatile java.util.function.Consumer<Bundle> mirrorIncomingListener;

    /** Mirror only: the connections Telecom holds for this app (what its ConnectionService returned). */
    public final List<Connection> mirrorConnections = new java.util.concurrent.CopyOnWriteArrayList<Connection>();

    /** Mirror only (the real one is the system's). */
    public TelecomManager() {}

    /**
     * Mirror only: whether Telecom has a call of this app's self-managed account that is not disconnected (the
     * system's own TelecomManager.isInSelfManagedCall, which NotificationManagerService asks before exempting a
     * CallStyle notification from a denied POST_NOTIFICATIONS).
     */
    public boolean mirrorIsInSelfManagedCall() {
        for (Connection connection : mirrorConnections) {
            if (connection.getState() != Connection.STATE_DISCONNECTED && !connection.mirrorDestroyed
                    && (connection.getConnectionProperties() & Connection.PROPERTY_SELF_MANAGED) != 0) {
                return true;
            }
        }
        return false;
    }

    public void registerPhoneAccount(PhoneAccount account) { mirrorRegistered.add(account); }

    /** Throws SecurityException without MANAGE_OWN_CALLS for a self-managed account. */
    public void addNewIncomingCall(PhoneAccountHandle phoneAccount, Bundle extras) {
        checkManageOwnCalls();
        synchronized (this) { mirrorIncomingExtras.add(extras); }
        java.util.function.Consumer<Bundle> listener = mirrorIncomingListener;
        if (listener != null) listener.accept(extras);
    }

    /** API 23; self-managed accounts need MANAGE_OWN_CALLS. */
    public void placeCall(Uri address, Bundle extras) {
        checkManageOwnCalls();
        synchronized (this) {
            mirrorPlacedCalls.add(address);
            mirrorPlacedExtras.add(extras);
        }
    }

    private void checkManageOwnCalls() {
        if (!mirrorManageOwnCallsGranted) {
            throw new SecurityException("Self-managed ConnectionServices require MANAGE_OWN_CALLS permission.");
        }
    }
}
