// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import java.util.LinkedHashMap;
import java.util.Map;

/** Mirror of {@code android.app.NotificationManager}: channels and posted notifications, recorded. */
public final class NotificationManager {
    public static final int IMPORTANCE_NONE = 0;
    public static final int IMPORTANCE_MIN = 1;
    public static final int IMPORTANCE_LOW = 2;
    public static final int IMPORTANCE_DEFAULT = 3;
    public static final int IMPORTANCE_HIGH = 4;

    /** Mirror only: the user's switches. */
    public volatile boolean mirrorNotificationsEnabled = true;
    public volatile boolean mirrorCanUseFullScreenIntent = true;
    /** Mirror only: channels by id; showing notifications by "tag/id". */
    public final Map<String, NotificationChannel> mirrorChannels = new LinkedHashMap<String, NotificationChannel>();
    public final Map<String, Notification> mirrorShowing = new LinkedHashMap<String, Notification>();
    /** Mirror only: every notification posted, in order. */
    public final java.util.List<Notification> mirrorPosted = new java.util.ArrayList<Notification>();

    /** Mirror only (the real one is the system's). */
    public NotificationManager() {}

    /** API 26. */
    public synchronized void createNotificationChannel(NotificationChannel channel) {
        mirrorChannels.put(channel.getId(), channel);
    }

    /** Mirror only: the phone's API level, for the posting checks below. */
    public volatile int mirrorSdkInt = 35;

    /**
     * Posts, with the system's checks (NotificationManagerService): from API 34 a full-screen intent without
     * USE_FULL_SCREEN_INTENT is dropped and the notification shown as a heads-up instead; a CallStyle notification
     * that neither requested a full-screen intent nor belongs to a foreground service is refused with
     * IllegalArgumentException ("CallStyle notifications must either be for a foreground Service or use a
     * fullScreenIntent"). Foreground services post through Service.startForeground, not here.
     */
    public synchronized void notify(String tag, int id, Notification notification) {
        if (mirrorSdkInt >= 34 && notification.fullScreenIntent != null && !mirrorCanUseFullScreenIntent) {
            notification.fullScreenIntent = null;
            notification.mirrorFullScreenIntentDenied = true;
        }
        if (notification.mirrorStyle instanceof Notification.CallStyle && notification.fullScreenIntent == null
                && !notification.mirrorFullScreenIntentDenied) {
            throw new IllegalArgumentException(
                "Not posted. CallStyle notifications must either be for a foreground Service or use a fullScreenIntent.");
        }
        mirrorPosted.add(notification);
        mirrorShowing.put(tag + "/" + id, notification);
    }

    public synchronized void cancel(String tag, int id) {
        mirrorShowing.remove(tag + "/" + id);
    }

    /** API 26: the channel as the user left it, or null when the app never created it. */
    public synchronized NotificationChannel getNotificationChannel(String channelId) { return mirrorChannels.get(channelId); }

    /** API 24. */
    public boolean areNotificationsEnabled() { return mirrorNotificationsEnabled; }

    /** API 34: whether USE_FULL_SCREEN_INTENT is granted (the user may revoke it). */
    public boolean canUseFullScreenIntent() { return mirrorCanUseFullScreenIntent; }
}
