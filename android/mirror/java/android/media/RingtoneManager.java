// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.media;

import android.net.Uri;

/** Mirror of {@code android.media.RingtoneManager}: the user's default sounds. */
public class RingtoneManager {
    public static final int TYPE_RINGTONE = 1;
    public static final int TYPE_NOTIFICATION = 2;
    public static final int TYPE_ALARM = 4;

    /** The default sound of [type], as Settings.System's URI (the user's choice, resolved when played). */
    public static Uri getDefaultUri(int type) {
        String name = type == TYPE_RINGTONE ? "ringtone" : type == TYPE_ALARM ? "alarm_alert" : "notification_sound";
        return Uri.fromParts("content", "//settings/system/" + name, null);
    }
}
