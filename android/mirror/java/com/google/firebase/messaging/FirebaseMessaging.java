// TEST-ONLY mirror of the Firebase/Play services SDK, NOT Firebase: real package, class, method names and
// parameter types (firebase.google.com/docs/reference/android), so dev.ringer.android compiles and is tested here
// as it is against the real library. Bodies are minimal test doubles; members named mirror... are not its API.
package com.google.firebase.messaging;

import com.google.android.gms.tasks.Task;

/** Mirror of Firebase's {@code FirebaseMessaging}: the registration token of this app instance. */
public class FirebaseMessaging {
    private static final FirebaseMessaging instance = new FirebaseMessaging();
    private volatile Task<String> mirrorTokenTask = new Task<>();

    public static FirebaseMessaging getInstance() { return instance; }

    /** The current registration token, fetched from Firebase when none is cached. */
    public Task<String> getToken() { return mirrorTokenTask; }

    /** Mirror only: what the next {@link #getToken} returns (each test process starts with a pending task). */
    public void mirrorSetTokenTask(Task<String> task) { mirrorTokenTask = task; }
}
