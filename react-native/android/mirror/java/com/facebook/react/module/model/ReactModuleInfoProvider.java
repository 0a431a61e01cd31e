// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/module/model/ReactModuleInfoProvider.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// A Kotlin fun interface there; a Java interface here: a lambda converts to either.
package com.facebook.react.module.model;

import java.util.Map;

/** Mirror of {@code ReactModuleInfoProvider}. */
public interface ReactModuleInfoProvider {
    Map<String, ReactModuleInfo> getReactModuleInfos();
}
