// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/jstasks/HeadlessJsTaskEventListener.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
package com.facebook.react.jstasks;

/** Mirror of {@code HeadlessJsTaskEventListener}: told when a task starts and finishes, on the UI thread. */
public interface HeadlessJsTaskEventListener {
    void onHeadlessJsTaskStart(int taskId);

    void onHeadlessJsTaskFinish(int taskId);
}
