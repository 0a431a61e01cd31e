// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

/** Mirror of {@code android.os.SystemClock}. */
public final class SystemClock {
    private SystemClock() {}

    /** Milliseconds since boot, including deep sleep. Mirror: the JVM's monotonic clock. */
    public static long elapsedRealtime() { return System.nanoTime() / 1000000L; }
}
