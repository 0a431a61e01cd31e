// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.Context;
import android.content.Intent;

/** Mirror of {@code android.app.PendingIntent}: records which factory made it, for what, with which flags. */
public final class PendingIntent {
    public static final int FLAG_ONE_SHOT = 1 << 30;
    public static final int FLAG_NO_CREATE = 1 << 29;
    public static final int FLAG_CANCEL_CURRENT = 1 << 28;
    public static final int FLAG_UPDATE_CURRENT = 1 << 27;
    /** API 23; required (or FLAG_MUTABLE) from API 31. */
    public static final int FLAG_IMMUTABLE = 1 << 26;
    /** API 31. */
    public static final int FLAG_MUTABLE = 1 << 25;

    /** Mirror only: "activity", "broadcast" or "service". */
    public final String mirrorKind;
    public final int mirrorRequestCode;
    public final Intent mirrorIntent;
    public final int mirrorFlags;

    private PendingIntent(String kind, int requestCode, Intent intent, int flags) {
        if (((flags & FLAG_IMMUTABLE) == 0) == ((flags & FLAG_MUTABLE) == 0)) {
            // Android 12 (targetSdk 31+) throws for neither; both is contradictory.
            throw new IllegalArgumentException("Targeting S+ requires exactly one of FLAG_IMMUTABLE or FLAG_MUTABLE");
        }
        mirrorKind = kind;
        mirrorRequestCode = requestCode;
        mirrorIntent = intent;
        mirrorFlags = flags;
    }

    public static PendingIntent getActivity(Context context, int requestCode, Intent intent, int flags) {
        return new PendingIntent("activity", requestCode, intent, flags);
    }

    public static PendingIntent getBroadcast(Context context, int requestCode, Intent intent, int flags) {
        return new PendingIntent("broadcast", requestCode, intent, flags);
    }

    public static PendingIntent getService(Context context, int requestCode, Intent intent, int flags) {
        return new PendingIntent("service", requestCode, intent, flags);
    }

    /** API 31. */
    public boolean isImmutable() { return (mirrorFlags & FLAG_IMMUTABLE) != 0; }
    /** API 31. */
    public boolean isActivity() { return mirrorKind.equals("activity"); }
    /** API 31. */
    public boolean isBroadcast() { return mirrorKind.equals("broadcast"); }
}
