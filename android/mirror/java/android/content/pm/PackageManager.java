// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content.pm;

/** Mirror of {@code android.content.pm.PackageManager}: the permission results and the system features. */
public abstract class PackageManager {
    public static final int PERMISSION_GRANTED = 0;
    public static final int PERMISSION_DENIED = -1;
    /** API 26; deprecated in API 33 for {@link #FEATURE_TELECOM}. */
    public static final String FEATURE_CONNECTION_SERVICE = "android.software.connectionservice";
    /** API 33: the device supports Telecom's APIs (some tablets, Chromebooks and watches do not). */
    public static final String FEATURE_TELECOM = "android.software.telecom";

    /** Mirror only (the real one is the system's). */
    public PackageManager() {}

    public abstract boolean hasSystemFeature(String featureName);
}
