// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

/** Mirror of {@code android.telecom.CallAudioState} (API 23; deprecated in 34 for {@link CallEndpoint}). */
public final class CallAudioState {
    public static final int ROUTE_EARPIECE = 0x00000001;
    public static final int ROUTE_BLUETOOTH = 0x00000002;
    public static final int ROUTE_WIRED_HEADSET = 0x00000004;
    public static final int ROUTE_SPEAKER = 0x00000008;
    /** API 34. */
    public static final int ROUTE_STREAMING = 0x00000010;
    public static final int ROUTE_WIRED_OR_EARPIECE = ROUTE_EARPIECE | ROUTE_WIRED_HEADSET;

    private final boolean mMuted;
    private final int mRoute;
    private final int mSupportedRouteMask;

    public CallAudioState(boolean muted, int route, int supportedRouteMask) {
        mMuted = muted;
        mRoute = route;
        mSupportedRouteMask = supportedRouteMask;
    }

    public boolean isMuted() { return mMuted; }
    public int getRoute() { return mRoute; }
    public int getSupportedRouteMask() { return mSupportedRouteMask; }
}
