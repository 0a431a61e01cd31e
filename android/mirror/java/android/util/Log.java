// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.util;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Mirror of {@code android.util.Log}: the warning level. Mirror body: each line is kept in {@link #mirrorLines}. */
public final class Log {
    /** Mirror only: every line logged, as "W/tag: message", in order. */
    public static final List<String> mirrorLines = new CopyOnWriteArrayList<String>();

    private Log() {}

    public static int w(String tag, String msg) {
        mirrorLines.add("W/" + tag + ": " + msg);
        return 0;
    }
}
