// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

/** Mirror of {@code android.telecom.VideoProfile}: the video states. */
public class VideoProfile {
    public static final int STATE_AUDIO_ONLY = 0x0;
    public static final int STATE_TX_ENABLED = 0x1;
    public static final int STATE_RX_ENABLED = 0x2;
    public static final int STATE_BIDIRECTIONAL = STATE_TX_ENABLED | STATE_RX_ENABLED;
    public static final int STATE_PAUSED = 0x4;
}
