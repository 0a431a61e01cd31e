// TEST-ONLY mirror of the Firebase/Play services SDK, NOT Firebase: real package, class, method names and
// parameter types (firebase.google.com/docs/reference/android), so dev.ringer.android compiles and is tested here
// as it is against the real library. Bodies are minimal test doubles; members named mirror... are not its API.
package com.google.android.gms.tasks;

/** Mirror of Play services' {@code OnSuccessListener}. */
public interface OnSuccessListener<TResult> {
    void onSuccess(TResult result);
}
