// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.ContextWrapper;
import android.content.Intent;
import android.os.IBinder;

/** Mirror of {@code android.app.Service}: lifecycle callbacks and the foreground state, recorded. */
public abstract class Service extends ContextWrapper {
    public static final int START_STICKY = 1;
    public static final int START_NOT_STICKY = 2;
    public static final int STOP_FOREGROUND_REMOVE = 1;

    /** Mirror only: thrown by the next startForeground (what the system refuses with), then cleared. */
    public RuntimeException mirrorStartForegroundFailure;
    /** Mirror only: the notification and type of the last successful startForeground; type -1 when untyped. */
    public Notification mirrorForegroundNotification;
    public int mirrorForegroundType = -1;
    public int mirrorForegroundId;
    /** Mirror only: every type startForeground was called with, in order. */
    public final java.util.List<Integer> mirrorForegroundTypes = new java.util.ArrayList<Integer>();
    public boolean mirrorStoppedSelf;
    /** Mirror only: the device's API level the system rules below apply for (Build.VERSION.SDK_INT by default). */
    public int mirrorSdkInt = android.os.Build.VERSION.SDK_INT;

    public Service() { super(null); }

    public void onCreate() {}
    public int onStartCommand(Intent intent, int flags, int startId) { return START_STICKY; }
    public abstract IBinder onBind(Intent intent);
    public void onDestroy() {}

    public final void startForeground(int id, Notification notification) {
        record(id, notification, -1);
    }

    /** API 29. Throws SecurityException for a type the app may not use (API 34), ForegroundServiceStartNotAllowedException (API 31). */
    public final void startForeground(int id, Notification notification, int foregroundServiceType) {
        if (mirrorSdkInt >= 34 && (foregroundServiceType & android.content.pm.ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE) != 0
                && checkSelfPermission(android.Manifest.permission.RECORD_AUDIO) != android.content.pm.PackageManager.PERMISSION_GRANTED) {
            // Android 14: a microphone-typed foreground service needs RECORD_AUDIO granted.
            throw new SecurityException("Starting FGS with type microphone requires permissions: RECORD_AUDIO");
        }
        record(id, notification, foregroundServiceType);
    }

    private void record(int id, Notification notification, int type) {
        RuntimeException failure = mirrorStartForegroundFailure;
        mirrorStartForegroundFailure = null;
        if (failure != null) throw failure;
        mirrorForegroundId = id;
        mirrorForegroundNotification = notification;
        mirrorForegroundType = type;
        mirrorForegroundTypes.add(type);
    }

    /** API 24. */
    public final void stopForeground(int notificationBehavior) {
        mirrorForegroundNotification = null;
        mirrorForegroundType = -1;
    }

    public final void stopSelf() { mirrorStoppedSelf = true; }
}
