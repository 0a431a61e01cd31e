// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package com.google.firebase.messaging;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** Mirror of Firebase's {@code RemoteMessage} (firebase-messaging). */
public final class RemoteMessage {
    public static final int PRIORITY_UNKNOWN = 0;
    public static final int PRIORITY_HIGH = 1;
    public static final int PRIORITY_NORMAL = 2;

    private final Map<String, String> mData;
    /** Mirror only: the delivery facts FCM fills in. */
    public int mirrorPriority = PRIORITY_HIGH;
    public int mirrorOriginalPriority = PRIORITY_HIGH;
    public long mirrorSentTime;
    public int mirrorTtl;

    private RemoteMessage(Map<String, String> data) { mData = Collections.unmodifiableMap(new HashMap<String, String>(data)); }

    public Map<String, String> getData() { return mData; }
    /** The priority the message was delivered with (FCM may demote HIGH to NORMAL). */
    public int getPriority() { return mirrorPriority; }
    public int getOriginalPriority() { return mirrorOriginalPriority; }
    /** Unix milliseconds. */
    public long getSentTime() { return mirrorSentTime; }
    /** Seconds. */
    public int getTtl() { return mirrorTtl; }

    /** Mirror of {@code RemoteMessage.Builder}. */
    public static class Builder {
        private final Map<String, String> mData = new HashMap<String, String>();

        public Builder(String to) {}
        public Builder setData(Map<String, String> data) { mData.clear(); mData.putAll(data); return this; }
        public Builder addData(String key, String value) { mData.put(key, value); return this; }
        public RemoteMessage build() { return new RemoteMessage(mData); }
    }
}
