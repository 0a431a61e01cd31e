// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.Context;
import android.content.Intent;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Mirror of {@code android.app.PendingIntent}: records which factory made it, for what, with which flags, and
 * plays the system's token identity. As on a device, a request for the same kind, request code and an intent
 * {@link Intent#filterEquals} to a live one's returns that one (extras are not part of the identity);
 * {@link #FLAG_UPDATE_CURRENT} replaces its extras, {@link #FLAG_CANCEL_CURRENT} makes a new one,
 * {@link #FLAG_NO_CREATE} returns null when none exists. Tokens are kept per Context (one phone's system).
 */
public final class PendingIntent {
    public static final int FLAG_ONE_SHOT = 1 << 30;
    public static final int FLAG_NO_CREATE = 1 << 29;
    public static final int FLAG_CANCEL_CURRENT = 1 << 28;
    public static final int FLAG_UPDATE_CURRENT = 1 << 27;
    /** API 23; required (or FLAG_MUTABLE) from API 31. */
    public static final int FLAG_IMMUTABLE = 1 << 26;
    /** API 31. */
    public static final int FLAG_MUTABLE = 1 << 25;

    private static final Map<Context, List<PendingIntent>> TOKENS = new IdentityHashMap<Context, List<PendingIntent>>();

    /** Mirror only: "activity", "broadcast" or "service". */
    public final String mirrorKind;
    public final int mirrorRequestCode;
    /**
     * Mirror only: the intent the system holds for this token (its extras change with FLAG_UPDATE_CURRENT); for
     * {@link #getActivities}, the last one (the activity in front, which also gives the token its identity).
     */
    public final Intent mirrorIntent;
    /** Mirror only: every intent the token starts, bottom first ({@link #getActivities}); else just {@link #mirrorIntent}. */
    public final Intent[] mirrorIntents;
    public final int mirrorFlags;

    private PendingIntent(String kind, int requestCode, Intent[] intents, int flags) {
        mirrorKind = kind;
        mirrorRequestCode = requestCode;
        mirrorIntents = intents;
        mirrorIntent = intents[intents.length - 1];
        mirrorFlags = flags;
    }

    private static PendingIntent obtain(Context context, String kind, int requestCode, Intent intent, int flags) {
        return obtain(context, kind, requestCode, new Intent[] { intent }, flags);
    }

    private static synchronized PendingIntent obtain(Context context, String kind, int requestCode, Intent[] intents, int flags) {
        Intent intent = intents[intents.length - 1];
        if (((flags & FLAG_IMMUTABLE) == 0) == ((flags & FLAG_MUTABLE) == 0)) {
            // Android 12 (targetSdk 31+) throws for neither; both is contradictory.
            throw new IllegalArgumentException("Targeting S+ requires exactly one of FLAG_IMMUTABLE or FLAG_MUTABLE");
        }
        List<PendingIntent> tokens = TOKENS.get(context);
        if (tokens == null) {
            tokens = new ArrayList<PendingIntent>();
            TOKENS.put(context, tokens);
        }
        PendingIntent existing = null;
        for (PendingIntent p : tokens) {
            if (p.mirrorKind.equals(kind) && p.mirrorRequestCode == requestCode && p.mirrorIntent.filterEquals(intent)) {
                existing = p;
                break;
            }
        }
        if (existing != null && (flags & FLAG_CANCEL_CURRENT) != 0) {
            tokens.remove(existing);
            existing = null;
        }
        if (existing != null) {
            if ((flags & FLAG_UPDATE_CURRENT) != 0) {
                for (int i = 0; i < existing.mirrorIntents.length && i < intents.length; i++) {
                    existing.mirrorIntents[i].replaceExtras(intents[i]);
                }
            }
            return existing;
        }
        if ((flags & FLAG_NO_CREATE) != 0) return null;
        PendingIntent created = new PendingIntent(kind, requestCode, intents, flags);
        tokens.add(created);
        return created;
    }

    public static PendingIntent getActivity(Context context, int requestCode, Intent intent, int flags) {
        return obtain(context, "activity", requestCode, intent, flags);
    }

    /**
     * Starts [intents] as one back stack, the last in front (the first needs FLAG_ACTIVITY_NEW_TASK outside an
     * activity); an activity token as {@link #getActivity}'s.
     */
    public static PendingIntent getActivities(Context context, int requestCode, Intent[] intents, int flags) {
        if (intents == null || intents.length == 0) throw new IllegalArgumentException("no intents");
        return obtain(context, "activity", requestCode, intents, flags);
    }

    public static PendingIntent getBroadcast(Context context, int requestCode, Intent intent, int flags) {
        return obtain(context, "broadcast", requestCode, intent, flags);
    }

    public static PendingIntent getService(Context context, int requestCode, Intent intent, int flags) {
        return obtain(context, "service", requestCode, intent, flags);
    }

    /** API 26. */
    public static PendingIntent getForegroundService(Context context, int requestCode, Intent intent, int flags) {
        return obtain(context, "foregroundService", requestCode, intent, flags);
    }

    /** API 31. */
    public boolean isImmutable() { return (mirrorFlags & FLAG_IMMUTABLE) != 0; }
    /** API 31. */
    public boolean isActivity() { return mirrorKind.equals("activity"); }
    /** API 31. */
    public boolean isBroadcast() { return mirrorKind.equals("broadcast"); }
    /** API 31. */
    public boolean isService() { return mirrorKind.equals("service"); }
    /** API 31. */
    public boolean isForegroundService() { return mirrorKind.equals("foregroundService"); }
}
