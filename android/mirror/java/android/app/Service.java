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
    public static final int START_REDELIVER_INTENT = 3;
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
    /**
     * Mirror only: whether the service, as last put in the foreground, may capture from the microphone: its type
     * includes MICROPHONE and the app was allowed while-in-use permissions then (visible); before API 30 any
     * foreground service may.
     */
    public boolean mirrorMicrophoneAllowed;
    /** Mirror only: the same for the camera (type CAMERA, CAMERA granted, visible from API 30). */
    public boolean mirrorCameraAllowed;
    /** Mirror only: the device's API level the system rules below apply for (Build.VERSION.SDK_INT by default). */
    public int mirrorSdkInt = android.os.Build.VERSION.SDK_INT;

    public Service() { super(null); }

    public void onCreate() {}
    public int onStartCommand(Intent intent, int flags, int startId) { return START_STICKY; }
    public abstract IBinder onBind(Intent intent);
    public void onDestroy() {}

    public final void startForeground(int id, Notification notification) {
        record(id, notification, -1);
        // Before API 30 a foreground service's process may use the microphone whatever its type.
        mirrorMicrophoneAllowed = mirrorSdkInt < 30 && checkSelfPermission(android.Manifest.permission.RECORD_AUDIO)
            == android.content.pm.PackageManager.PERMISSION_GRANTED;
    }

    /**
     * API 29. Throws SecurityException for a type the app may not use (API 34: phoneCall without MANAGE_OWN_CALLS,
     * and the microphone rules below), ForegroundServiceStartNotAllowedException (API 31). The microphone is a while-in-use permission: from API 34 a microphone type is refused
     * (SecurityException) without RECORD_AUDIO, or while the app is not visible (developer.android.com,
     * "Restrictions on starting a foreground service from the background", while-in-use permissions); on API 30-33
     * such a start is accepted but the service gets no microphone access.
     */
    public final void startForeground(int id, Notification notification, int foregroundServiceType) {
        int declared;
        try {
            declared = getPackageManager().getServiceInfo(new android.content.ComponentName(this, getClass()), 0).foregroundServiceType;
        } catch (android.content.pm.PackageManager.NameNotFoundException e) {
            declared = 0;
        }
        if ((foregroundServiceType & ~declared) != 0) {
            // Android 10+: "foregroundServiceType must be a subset of foregroundServiceType attribute in service element
            // of manifest file".
            throw new IllegalArgumentException("foregroundServiceType 0x" + Integer.toHexString(foregroundServiceType)
                + " is not a subset of foregroundServiceType attribute 0x" + Integer.toHexString(declared) + " in service element of manifest file");
        }
        boolean camera = (foregroundServiceType & android.content.pm.ServiceInfo.FOREGROUND_SERVICE_TYPE_CAMERA) != 0;
        boolean cameraGranted = checkSelfPermission(android.Manifest.permission.CAMERA)
            == android.content.pm.PackageManager.PERMISSION_GRANTED;
        if (mirrorSdkInt >= 34 && camera && (!cameraGranted || !mirrorAppVisible()
                || checkSelfPermission(android.Manifest.permission.FOREGROUND_SERVICE_CAMERA)
                    != android.content.pm.PackageManager.PERMISSION_GRANTED)) {
            // Android 14: the camera type needs FOREGROUND_SERVICE_CAMERA and CAMERA, and CAMERA is a while-in-use
            // permission, as the microphone below.
            throw new SecurityException("Starting FGS with type camera requires permissions: FOREGROUND_SERVICE_CAMERA and "
                + "CAMERA, while the app is visible");
        }
        boolean microphone = (foregroundServiceType & android.content.pm.ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE) != 0;
        boolean recordAudio = checkSelfPermission(android.Manifest.permission.RECORD_AUDIO)
            == android.content.pm.PackageManager.PERMISSION_GRANTED;
        if (mirrorSdkInt >= 34 && (foregroundServiceType & android.content.pm.ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL) != 0
                && checkSelfPermission(android.Manifest.permission.MANAGE_OWN_CALLS)
                    != android.content.pm.PackageManager.PERMISSION_GRANTED) {
            // Android 14: phoneCall needs MANAGE_OWN_CALLS (or the dialer role), as "Foreground service types" says.
            throw new SecurityException("Starting FGS with type phoneCall requires permissions: MANAGE_OWN_CALLS");
        }
        if (mirrorSdkInt >= 34 && microphone && !recordAudio) {
            // Android 14: a microphone-typed foreground service needs RECORD_AUDIO granted.
            throw new SecurityException("Starting FGS with type microphone requires permissions: RECORD_AUDIO");
        }
        if (mirrorSdkInt >= 34 && microphone && !mirrorAppVisible()) {
            throw new SecurityException("Starting FGS with type microphone: the app is in the background and not "
                + "exempt from the while-in-use permission restrictions");
        }
        record(id, notification, foregroundServiceType);
        mirrorMicrophoneAllowed = recordAudio && (mirrorSdkInt < 30 || (microphone && mirrorAppVisible()));
        mirrorCameraAllowed = cameraGranted && camera && (mirrorSdkInt < 30 || mirrorAppVisible());
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
        mirrorMicrophoneAllowed = false;
        mirrorCameraAllowed = false;
    }

    public final void stopSelf() { mirrorStoppedSelf = true; }
}
