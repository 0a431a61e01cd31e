// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/ReactPackage.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// Without createViewManagers, whose ViewManager types this library never touches.
package com.facebook.react;

import com.facebook.react.bridge.NativeModule;
import com.facebook.react.bridge.ReactApplicationContext;
import java.util.List;

/** Mirror of {@code ReactPackage}. */
public interface ReactPackage {
    List<NativeModule> createNativeModules(ReactApplicationContext reactContext);

    default NativeModule getModule(String name, ReactApplicationContext reactContext) { return null; }
}
