// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/CxxCallbackImpl.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// React Native creates it from C++ only (private constructor, JNI hybrid); mirrorRecording stands in for that in tests.
package com.facebook.react.bridge;

/**
 * Mirror of {@code CxxCallbackImpl}: the callback that calls into C++. A TurboModule's event emitter is one,
 * handed over by {@code JavaTurboModule::setEventEmitterCallback} when JavaScript first looks the module up.
 */
public final class CxxCallbackImpl implements Callback {
    private final Callback mTarget;

    private CxxCallbackImpl(Callback target) { mTarget = target; }

    @Override public void invoke(Object... args) { mTarget.invoke(args); }

    /** Mirror only: a callback that hands its arguments to [target], as the JSI runtime's would reach JavaScript. */
    public static CxxCallbackImpl mirrorRecording(Callback target) { return new CxxCallbackImpl(target); }
}
