// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

/** Mirror of {@code android.os.PowerManager}. */
public final class PowerManager {
    /** Mirror only: the packages the user exempted from battery optimizations (Doze's app standby). */
    public final java.util.Set<String> mirrorIgnoringOptimizations = new java.util.HashSet<String>();

    /** Mirror only (the real one is the system's). */
    public PowerManager() {}

    /** API 23. */
    public boolean isIgnoringBatteryOptimizations(String packageName) {
        return mirrorIgnoringOptimizations.contains(packageName);
    }
}
