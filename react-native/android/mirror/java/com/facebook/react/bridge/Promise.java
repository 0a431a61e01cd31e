// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/Promise.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
package com.facebook.react.bridge;

/** Mirror of {@code Promise}: a JavaScript promise handed to a method, resolved or rejected once. Every overload. */
public interface Promise {
    void resolve(Object value);

    void reject(String code, String message);

    void reject(String code, Throwable throwable);

    void reject(String code, String message, Throwable throwable);

    void reject(Throwable throwable);

    void reject(Throwable throwable, WritableMap userInfo);

    void reject(String code, WritableMap userInfo);

    void reject(String code, Throwable throwable, WritableMap userInfo);

    void reject(String code, String message, WritableMap userInfo);

    void reject(String code, String message, Throwable throwable, WritableMap userInfo);

    /** Deprecated in React Native: the code is EUNSPECIFIED. */
    @Deprecated
    void reject(String message);
}
