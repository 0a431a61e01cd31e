// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/BaseJavaModule.java
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
package com.facebook.react.bridge;

import com.facebook.proguard.annotations.DoNotStrip;

/**
 * Mirror of {@code BaseJavaModule}. {@code mEventEmitterCallback} stays null until JavaScript looks the module up
 * (the generated JSI spec's constructor calls {@code setEventEmitterCallback}); codegen's {@code emitOn...} methods
 * invoke it without a null check.
 */
public abstract class BaseJavaModule implements NativeModule {
    public static final String METHOD_TYPE_ASYNC = "async";
    public static final String METHOD_TYPE_PROMISE = "promise";
    public static final String METHOD_TYPE_SYNC = "sync";

    protected CxxCallbackImpl mEventEmitterCallback;

    private final ReactApplicationContext mReactApplicationContext;

    public BaseJavaModule() { this(null); }

    public BaseJavaModule(ReactApplicationContext reactContext) { mReactApplicationContext = reactContext; }

    @Override public void initialize() {}

    @Override public boolean canOverrideExistingModule() { return false; }

    @Override public void invalidate() {}

    protected final ReactApplicationContext getReactApplicationContext() {
        if (mReactApplicationContext == null) {
            throw new AssertionError("Tried to get ReactApplicationContext even though NativeModule wasn't instantiated with one");
        }
        return mReactApplicationContext;
    }

    @DoNotStrip
    protected void setEventEmitterCallback(CxxCallbackImpl eventEmitterCallback) {
        mEventEmitterCallback = eventEmitterCallback;
    }

    /** Mirror only: what the JSI runtime does through JNI when JavaScript first looks the module up. */
    public final void mirrorSetEventEmitterCallback(CxxCallbackImpl eventEmitterCallback) {
        setEventEmitterCallback(eventEmitterCallback);
    }
}
