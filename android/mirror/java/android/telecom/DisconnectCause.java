// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

/** Mirror of {@code android.telecom.DisconnectCause} (API 23; ANSWERED_ELSEWHERE and CALL_PULLED API 25, N_MR1). */
public final class DisconnectCause {
    public static final int UNKNOWN = 0;
    public static final int ERROR = 1;
    public static final int LOCAL = 2;
    public static final int REMOTE = 3;
    public static final int CANCELED = 4;
    public static final int MISSED = 5;
    public static final int REJECTED = 6;
    public static final int BUSY = 7;
    public static final int RESTRICTED = 8;
    public static final int OTHER = 9;
    public static final int CONNECTION_MANAGER_NOT_SUPPORTED = 10;
    public static final int ANSWERED_ELSEWHERE = 11;
    public static final int CALL_PULLED = 12;

    private final int mCode;
    private final String mReason;

    public DisconnectCause(int code) { this(code, null); }
    public DisconnectCause(int code, String reason) { mCode = code; mReason = reason; }

    public int getCode() { return mCode; }
    public String getReason() { return mReason; }

    @Override public String toString() { return "DisconnectCause [ Code: (" + mCode + ") Reason: (" + mReason + ") ]"; }
}
