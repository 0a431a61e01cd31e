// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

/** Mirror of {@code android.content.ActivityNotFoundException}: startActivity found nothing to handle the intent. */
public class ActivityNotFoundException extends RuntimeException {
    public ActivityNotFoundException() {}
    public ActivityNotFoundException(String name) { super(name); }
}
