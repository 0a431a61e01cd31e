// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/ReactContext.java
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// React Native's ReactContext extends android.content.ContextWrapper; here the Android mirror's (android/mirror/java).
package com.facebook.react.bridge;

import android.content.Context;
import android.content.ContextWrapper;
import android.content.Intent;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Mirror of {@code ReactContext}: the Android context of a React instance. React Native hands the host activity's
 * onNewIntent to every ActivityEventListener (ReactActivity -> ReactHost.onNewIntent -> ReactContext.onNewIntent):
 * under the new architecture ReactActivity then does not call Activity.onNewIntent's super.
 */
public abstract class ReactContext extends ContextWrapper {
    private final CopyOnWriteArraySet<ActivityEventListener> mActivityEventListeners =
        new CopyOnWriteArraySet<ActivityEventListener>();

    public ReactContext(Context base) { super(base); }

    public abstract boolean hasActiveReactInstance();

    public void addActivityEventListener(ActivityEventListener listener) { mActivityEventListeners.add(listener); }

    public void removeActivityEventListener(ActivityEventListener listener) { mActivityEventListeners.remove(listener); }

    /** Mirror only: the host activity got a new intent (React Native's onNewIntent(Activity, Intent)). */
    public void mirrorNewIntent(Intent intent) {
        for (ActivityEventListener listener : mActivityEventListeners) listener.onNewIntent(intent);
    }
}
