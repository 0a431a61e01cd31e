// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.graphics.drawable;

import android.content.Context;

/** Mirror of {@code android.graphics.drawable.Icon} (API 23). */
public final class Icon {
    private final int mResId;

    private Icon(int resId) { mResId = resId; }

    public static Icon createWithResource(Context context, int resId) { return new Icon(resId); }

    /** API 28. */
    public int getResId() { return mResId; }
}
