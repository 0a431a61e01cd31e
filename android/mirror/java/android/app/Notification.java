// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.Context;
import android.graphics.drawable.Icon;
import java.util.ArrayList;
import java.util.List;

/** Mirror of {@code android.app.Notification}: the public fields the platform has, and its Builder. */
public class Notification {
    public static final String CATEGORY_CALL = "call";
    public static final int FLAG_ONGOING_EVENT = 0x00000002;
    public static final int FLAG_INSISTENT = 0x00000004;
    public static final int FLAG_ONLY_ALERT_ONCE = 0x00000008;

    public String category;
    public int flags;
    public PendingIntent contentIntent;
    public PendingIntent fullScreenIntent;
    public Action[] actions;
    private String mChannelId;
    /** Mirror only: the style set, the title and the small icon resource. */
    public Style mirrorStyle;
    /** Mirror only: the system dropped the full-screen intent (API 34, USE_FULL_SCREEN_INTENT not granted). */
    public boolean mirrorFullScreenIntentDenied;
    public CharSequence mirrorTitle;
    public CharSequence mirrorText;
    public int mirrorSmallIcon;

    public Notification() {}

    /** API 26. */
    public String getChannelId() { return mChannelId; }

    /** Mirror of {@code Notification.Action}. */
    public static class Action {
        public CharSequence title;
        public PendingIntent actionIntent;

        private Action(CharSequence title, PendingIntent intent) {
            this.title = title;
            this.actionIntent = intent;
        }

        /** Mirror of {@code Notification.Action.Builder}. */
        public static final class Builder {
            private final CharSequence mTitle;
            private final PendingIntent mIntent;

            /** API 23. */
            public Builder(Icon icon, CharSequence title, PendingIntent intent) {
                mTitle = title;
                mIntent = intent;
            }

            public Action build() { return new Action(mTitle, mIntent); }
        }
    }

    /** Mirror of {@code Notification.Style}. */
    public abstract static class Style {
        public Style() {}
    }

    /** Mirror of {@code Notification.CallStyle} (API 31). */
    public static class CallStyle extends Style {
        public static final int CALL_TYPE_UNKNOWN = 0;
        public static final int CALL_TYPE_INCOMING = 1;
        public static final int CALL_TYPE_ONGOING = 2;
        public static final int CALL_TYPE_SCREENING = 3;

        /** Mirror only: what the factory was given. */
        public final int mirrorCallType;
        public final Person mirrorPerson;
        public final PendingIntent mirrorAnswerIntent;
        public final PendingIntent mirrorDeclineIntent;
        public final PendingIntent mirrorHangUpIntent;

        private CallStyle(int type, Person person, PendingIntent answer, PendingIntent decline, PendingIntent hangUp) {
            if (person == null || person.getName() == null || person.getName().length() == 0) {
                throw new IllegalArgumentException("person must have a non-empty name");
            }
            mirrorCallType = type;
            mirrorPerson = person;
            mirrorAnswerIntent = answer;
            mirrorDeclineIntent = decline;
            mirrorHangUpIntent = hangUp;
        }

        public static CallStyle forIncomingCall(Person person, PendingIntent declineIntent, PendingIntent answerIntent) {
            if (declineIntent == null || answerIntent == null) throw new NullPointerException();
            return new CallStyle(CALL_TYPE_INCOMING, person, answerIntent, declineIntent, null);
        }

        public static CallStyle forOngoingCall(Person person, PendingIntent hangUpIntent) {
            if (hangUpIntent == null) throw new NullPointerException();
            return new CallStyle(CALL_TYPE_ONGOING, person, null, null, hangUpIntent);
        }
    }

    /** Mirror of {@code Notification.Builder}. */
    public static class Builder {
        private final Notification n = new Notification();
        private final List<Action> mActions = new ArrayList<Action>();

        /** API 26. */
        public Builder(Context context, String channelId) { n.mChannelId = channelId; }

        public Builder setSmallIcon(int icon) { n.mirrorSmallIcon = icon; return this; }
        public Builder setContentTitle(CharSequence title) { n.mirrorTitle = title; return this; }
        public Builder setContentText(CharSequence text) { n.mirrorText = text; return this; }
        public Builder setCategory(String category) { n.category = category; return this; }
        public Builder setOngoing(boolean ongoing) {
            n.flags = ongoing ? n.flags | FLAG_ONGOING_EVENT : n.flags & ~FLAG_ONGOING_EVENT;
            return this;
        }
        public Builder setContentIntent(PendingIntent intent) { n.contentIntent = intent; return this; }
        public Builder setFullScreenIntent(PendingIntent intent, boolean highPriority) { n.fullScreenIntent = intent; return this; }
        public Builder addAction(Action action) { mActions.add(action); return this; }
        public Builder setStyle(Style style) { n.mirrorStyle = style; return this; }
        /** Sound and vibration only when not already showing; an update with it stops any ongoing alerting. */
        public Builder setOnlyAlertOnce(boolean onlyAlertOnce) {
            n.flags = onlyAlertOnce ? n.flags | FLAG_ONLY_ALERT_ONCE : n.flags & ~FLAG_ONLY_ALERT_ONCE;
            return this;
        }

        public Notification build() {
            n.actions = mActions.isEmpty() ? null : mActions.toArray(new Action[0]);
            return n;
        }
    }
}
