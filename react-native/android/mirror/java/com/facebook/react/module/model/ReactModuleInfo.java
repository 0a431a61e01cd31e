// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/module/model/ReactModuleInfo.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// Its Kotlin properties are read from Java as name(), className(), canOverrideExistingModule(), needsEagerInit() (@get:JvmName) and isCxxModule(), isTurboModule().
package com.facebook.react.module.model;

/** Mirror of {@code ReactModuleInfo}: what a package says of a module before creating it. */
public final class ReactModuleInfo {
    private final String mName;
    private final String mClassName;
    private final boolean mCanOverrideExistingModule;
    private final boolean mNeedsEagerInit;
    private final boolean mIsCxxModule;
    private final boolean mIsTurboModule;

    public ReactModuleInfo(String name, String className, boolean canOverrideExistingModule, boolean needsEagerInit,
                           boolean isCxxModule, boolean isTurboModule) {
        mName = name;
        mClassName = className;
        mCanOverrideExistingModule = canOverrideExistingModule;
        mNeedsEagerInit = needsEagerInit;
        mIsCxxModule = isCxxModule;
        mIsTurboModule = isTurboModule;
    }

    public String name() { return mName; }
    public String className() { return mClassName; }
    public boolean canOverrideExistingModule() { return mCanOverrideExistingModule; }
    public boolean needsEagerInit() { return mNeedsEagerInit; }
    public boolean isCxxModule() { return mIsCxxModule; }
    public boolean isTurboModule() { return mIsTurboModule; }
}
