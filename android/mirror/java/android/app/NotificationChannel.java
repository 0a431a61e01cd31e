// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

/** Mirror of {@code android.app.NotificationChannel} (API 26). */
public final class NotificationChannel {
    private final String mId;
    private final CharSequence mName;
    private int mImportance;
    private String mDescription;
    private android.net.Uri mSound;
    private android.media.AudioAttributes mAudioAttributes;
    private boolean mVibration;
    private long[] mVibrationPattern;

    public NotificationChannel(String id, CharSequence name, int importance) {
        mId = id;
        mName = name;
        mImportance = importance;
    }

    public String getId() { return mId; }
    public CharSequence getName() { return mName; }
    public int getImportance() { return mImportance; }
    /** The app may lower it before creating the channel; afterwards only the user changes it (mirror: the test). */
    public void setImportance(int importance) { mImportance = importance; }
    public void setDescription(String description) { mDescription = description; }
    public String getDescription() { return mDescription; }
    public void setSound(android.net.Uri sound, android.media.AudioAttributes audioAttributes) {
        mSound = sound;
        mAudioAttributes = audioAttributes;
    }
    public android.net.Uri getSound() { return mSound; }
    public android.media.AudioAttributes getAudioAttributes() { return mAudioAttributes; }
    public void enableVibration(boolean vibration) { mVibration = vibration; }
    public boolean shouldVibrate() { return mVibration; }
    public void setVibrationPattern(long[] vibrationPattern) {
        mVibration = vibrationPattern != null && vibrationPattern.length > 0;
        mVibrationPattern = vibrationPattern;
    }
    public long[] getVibrationPattern() { return mVibrationPattern; }
}
