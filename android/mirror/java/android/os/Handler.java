// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

/**
 * Mirror of {@code android.os.Handler}: posting to a looper's thread. Mirror body: post runs the runnable at once on
 * the calling thread (Android queues it and runs it later on the looper's thread).
 */
public class Handler {
    private final Looper mLooper;

    public Handler(Looper looper) { mLooper = looper; }

    public final Looper getLooper() { return mLooper; }

    public final boolean post(Runnable r) {
        r.run();
        return true;
    }
}
