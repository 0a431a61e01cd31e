// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/ReadableMap.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
package com.facebook.react.bridge;

import java.util.HashMap;

/** Mirror of {@code ReadableMap}: a JavaScript object handed to native code (a subset of its getters). */
public interface ReadableMap {
    boolean hasKey(String name);

    boolean isNull(String name);

    ReadableType getType(String name);

    String getString(String name);

    boolean getBoolean(String name);

    double getDouble(String name);

    ReadableMap getMap(String name);

    ReadableArray getArray(String name);

    HashMap<String, Object> toHashMap();
}
