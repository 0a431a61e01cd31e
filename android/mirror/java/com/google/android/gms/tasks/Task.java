// TEST-ONLY mirror of the Firebase/Play services SDK, NOT Firebase: real package, class, method names and
// parameter types (firebase.google.com/docs/reference/android), so dev.ringer.android compiles and is tested here
// as it is against the real library. Bodies are minimal test doubles; members named mirror... are not its API.
package com.google.android.gms.tasks;

import java.util.ArrayList;
import java.util.List;

/**
 * Mirror of Play services' {@code Task} (abstract there; concrete here). The test completes it with
 * {@link #mirrorSucceed}; listeners added before or after run then, as on a device (there on the main thread).
 */
public class Task<TResult> {
    private final List<OnSuccessListener<? super TResult>> listeners = new ArrayList<>();
    private boolean done;
    private TResult result;

    public synchronized Task<TResult> addOnSuccessListener(OnSuccessListener<? super TResult> listener) {
        if (done) listener.onSuccess(result); else listeners.add(listener);
        return this;
    }

    public synchronized boolean isComplete() { return done; }

    /** Mirror only: the task succeeds with {@code value}. */
    public void mirrorSucceed(TResult value) {
        List<OnSuccessListener<? super TResult>> waiting;
        synchronized (this) {
            if (done) return;
            done = true;
            result = value;
            waiting = new ArrayList<>(listeners);
            listeners.clear();
        }
        for (OnSuccessListener<? super TResult> listener : waiting) listener.onSuccess(value);
    }
}
