// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/ActivityEventListener.java
// at tag v0.79.0 (read with git show; a Kotlin interface of the same members at v0.82.0, onUserLeaveHint with a
// default body in both), so that react-native/android compiles and is tested on a machine without React Native.
// Bodies are test doubles; members named mirror... are not React Native API.
package com.facebook.react.bridge;

import android.app.Activity;
import android.content.Intent;

/** Mirror of {@code ActivityEventListener}: the host activity's results and new intents, for native modules. */
public interface ActivityEventListener {
    void onActivityResult(Activity activity, int requestCode, int resultCode, Intent data);

    void onNewIntent(Intent intent);

    default void onUserLeaveHint(Activity activity) {}
}
