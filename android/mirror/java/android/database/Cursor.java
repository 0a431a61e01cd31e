// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.database;

/** Mirror of {@code android.database.Cursor}: the type ContentProvider.query returns (no member is used). */
public interface Cursor {}
