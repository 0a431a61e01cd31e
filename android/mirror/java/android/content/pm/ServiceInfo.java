// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content.pm;

/** Mirror of {@code android.content.pm.ServiceInfo}: the foreground service types (API 29; required from API 34). */
public class ServiceInfo {
    /** API 29: the types the service's manifest entry declares (android:foregroundServiceType). */
    public int foregroundServiceType;

    public static final int FOREGROUND_SERVICE_TYPE_PHONE_CALL = 4;
    public static final int FOREGROUND_SERVICE_TYPE_CAMERA = 64;
    public static final int FOREGROUND_SERVICE_TYPE_MICROPHONE = 128;
}
