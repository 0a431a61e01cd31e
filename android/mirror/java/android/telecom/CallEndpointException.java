// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

/** Mirror of {@code android.telecom.CallEndpointException} (API 34): why an endpoint change failed. */
public final class CallEndpointException extends RuntimeException {
    public static final int ERROR_ENDPOINT_DOES_NOT_EXIST = 1;
    public static final int ERROR_REQUEST_TIME_OUT = 2;
    public static final int ERROR_ANOTHER_REQUEST = 3;
    public static final int ERROR_UNSPECIFIED = 4;

    private final int mCode;

    public CallEndpointException(String message, int code) {
        super(message);
        mCode = code;
    }

    public int getCode() { return mCode; }
}
