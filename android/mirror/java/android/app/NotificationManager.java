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

    /** API 26. An existing channel keeps its settings: after creation only the user changes them. */
    public synchronized void createNotificationChannel(NotificationChannel channel) {
        if (!mirrorChannels.containsKey(channel.getId())) mirrorChannels.put(channel.getId(), channel);
    }

    /** Mirror only: the phone's API level, for the posting checks below. */
    public volatile int mirrorSdkInt = 35;
    /**
     * Mirror only: whether Telecom holds a self-managed call of this app now (the phone wires it to its
     * TelecomManager); false when unset, as on a device without Telecom.
     */
    public volatile java.util.function.BooleanSupplier mirrorInSelfManagedCall = () -> false;
    /** Mirror only: notifications the system dropped (notifications off, channel off), in order. */
    public final java.util.List<Notification> mirrorBlocked = new java.util.ArrayList<Notification>();
    /** Mirror only: the "tag/id" of each showing notification whose channel sound is playing now. */
    public final java.util.Set<String> mirrorSounding = new java.util.LinkedHashSet<String>();

    /**
     * Posts, with the system's checks (NotificationManagerService):
     * <ul>
     * <li>notifications off for the app (Android 13+: POST_NOTIFICATIONS denied) or the notification's channel
     * turned off (IMPORTANCE_NONE): dropped without an error, except, from API 33, a CallStyle notification
     * posted while Telecom holds a self-managed call of the app (developer.android.com "Notification runtime
     * permission", Exemptions: apps that self-manage phone calls; NotificationManagerService checks
     * isInSelfManagedCall and the CallStyle together);</li>
     * <li>from API 34 a full-screen intent without USE_FULL_SCREEN_INTENT is dropped and the notification shown as
     * a heads-up instead;</li>
     * <li>a CallStyle notification that neither requested a full-screen intent nor belongs to a foreground
     * service is refused with IllegalArgumentException ("CallStyle notifications must either be for a
     * foreground Service or use a fullScreenIntent").</li>
     * </ul>
     * A shown FLAG_INSISTENT notification on a channel with a sound and at least IMPORTANCE_DEFAULT keeps sounding
     * until cancelled; an update with FLAG_ONLY_ALERT_ONCE stops it (Notification.Builder.setOnlyAlertOnce).
     * Foreground services post through Service.startForeground, not here.
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
        NotificationChannel channel = mirrorChannels.get(notification.getChannelId());
        boolean channelOff = channel != null && channel.getImportance() == IMPORTANCE_NONE;
        boolean exempt = mirrorSdkInt >= 33 && notification.mirrorStyle instanceof Notification.CallStyle
            && mirrorInSelfManagedCall.getAsBoolean();
        String key = tag + "/" + id;
        if ((!mirrorNotificationsEnabled || channelOff) && !exempt) {
            mirrorBlocked.add(notification);
            return;
        }
        boolean update = mirrorShowing.containsKey(key);
        mirrorPosted.add(notification);
        mirrorShowing.put(key, notification);
        boolean audible = channel != null && channel.getSound() != null && channel.getImportance() >= IMPORTANCE_DEFAULT
            && (notification.flags & Notification.FLAG_INSISTENT) != 0;
        boolean onlyOnce = (notification.flags & Notification.FLAG_ONLY_ALERT_ONCE) != 0;
        if (!audible || (update && onlyOnce)) {
            mirrorSounding.remove(key);
        } else if (!update || !onlyOnce) {
            mirrorSounding.add(key);
        }
    }

    public synchronized void cancel(String tag, int id) {
        mirrorShowing.remove(tag + "/" + id);
        mirrorSounding.remove(tag + "/" + id);
    }

    /** API 26: the channel as the user left it, or null when the app never created it. */
    public synchronized NotificationChannel getNotificationChannel(String channelId) { return mirrorChannels.get(channelId); }

    /** API 24. */
    public boolean areNotificationsEnabled() { return mirrorNotificationsEnabled; }

    /** API 34: whether USE_FULL_SCREEN_INTENT is granted (the user may revoke it). */
    public boolean canUseFullScreenIntent() { return mirrorCanUseFullScreenIntent; }
}
