// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/WritableMap.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
package com.facebook.react.bridge;

/** Mirror of {@code WritableMap}: a JavaScript object built in native code. */
public interface WritableMap extends ReadableMap {
    void putArray(String key, ReadableArray value);

    void putBoolean(String key, boolean value);

    void putDouble(String key, double value);

    void putInt(String key, int value);

    void putLong(String key, long value);

    void putMap(String key, ReadableMap value);

    void putNull(String key);

    void putString(String key, String value);
}
