// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

/** Mirror of {@code android.content.BroadcastReceiver}. */
public abstract class BroadcastReceiver {
    private PendingResult mPendingResult;

    public abstract void onReceive(Context context, Intent intent);

    /** Keeps the broadcast alive past onReceive until {@link PendingResult#finish()} (about 10 s at most). */
    public final PendingResult goAsync() {
        mPendingResult = new PendingResult();
        return mPendingResult;
    }

    /** Mirror only: the result goAsync() returned last, or null. */
    public final PendingResult mirrorPendingResult() { return mPendingResult; }

    /** Mirror of {@code BroadcastReceiver.PendingResult}. */
    public static class PendingResult {
        private volatile boolean mFinished;

        public final void finish() {
            if (mFinished) throw new IllegalStateException("Broadcast already finished");
            mFinished = true;
        }

        /** Mirror only: whether finish() was called. */
        public final boolean mirrorFinished() { return mFinished; }
    }
}
