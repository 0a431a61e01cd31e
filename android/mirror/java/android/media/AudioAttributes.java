// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.media;

/** Mirror of {@code android.media.AudioAttributes} (API 21). */
public final class AudioAttributes {
    public static final int CONTENT_TYPE_SONIFICATION = 4;
    public static final int USAGE_NOTIFICATION_RINGTONE = 6;

    private final int mUsage;
    private final int mContentType;

    private AudioAttributes(int usage, int contentType) {
        mUsage = usage;
        mContentType = contentType;
    }

    public int getUsage() { return mUsage; }
    public int getContentType() { return mContentType; }

    /** Mirror of {@code AudioAttributes.Builder}. */
    public static class Builder {
        private int mUsage;
        private int mContentType;

        public Builder() {}
        public Builder setUsage(int usage) { mUsage = usage; return this; }
        public Builder setContentType(int contentType) { mContentType = contentType; return this; }
        public AudioAttributes build() { return new AudioAttributes(mUsage, mContentType); }
    }
}
