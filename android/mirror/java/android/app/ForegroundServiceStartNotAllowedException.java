// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

/** Mirror of {@code android.app.ForegroundServiceStartNotAllowedException} (API 31). */
public final class ForegroundServiceStartNotAllowedException extends ServiceStartNotAllowedException {
    public ForegroundServiceStartNotAllowedException(String message) { super(message); }
}
