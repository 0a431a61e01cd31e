// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

/** Mirror of {@code android.os.OutcomeReceiver} (API 31): the result or the error of an asynchronous operation. */
public interface OutcomeReceiver<R, E extends Throwable> {
    void onResult(R result);
    default void onError(E error) {}
}
