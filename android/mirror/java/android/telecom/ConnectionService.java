// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

import android.app.Service;
import android.content.Intent;
import android.os.IBinder;

/** Mirror of {@code android.telecom.ConnectionService}: Telecom's calls into it are made by the tests. */
public abstract class ConnectionService extends Service {
    public static final String SERVICE_INTERFACE = "android.telecom.ConnectionService";

    public ConnectionService() {}

    /** Mirror: bound by Telecom only. */
    @Override public final IBinder onBind(Intent intent) { return null; }

    public Connection onCreateIncomingConnection(PhoneAccountHandle connectionManagerPhoneAccount, ConnectionRequest request) {
        return null;
    }

    public void onCreateIncomingConnectionFailed(PhoneAccountHandle connectionManagerPhoneAccount, ConnectionRequest request) {}

    public Connection onCreateOutgoingConnection(PhoneAccountHandle connectionManagerPhoneAccount, ConnectionRequest request) {
        return null;
    }

    public void onCreateOutgoingConnectionFailed(PhoneAccountHandle connectionManagerPhoneAccount, ConnectionRequest request) {}
    /** API 28: Telecom gives the call focus to another ConnectionService's call. */
    public void onConnectionServiceFocusLost() {}
    /** API 28: Telecom gives this service the call focus. */
    public void onConnectionServiceFocusGained() {}
    /** API 28. Mirror body: counted in {@link #mirrorFocusReleases}. */
    public final void connectionServiceFocusReleased() { mirrorFocusReleases++; }
    /** How many times the service released its focus. */
    public volatile int mirrorFocusReleases;
}
