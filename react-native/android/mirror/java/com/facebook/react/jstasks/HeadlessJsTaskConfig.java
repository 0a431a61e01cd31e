// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/jstasks/HeadlessJsTaskConfig.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// React Native's is a Kotlin class with an @JvmOverloads constructor (taskKey, data, timeout = 0,
// isAllowedInForeground = false, retryPolicy = NoRetryPolicy.INSTANCE); the retry policy is not used here.
package com.facebook.react.jstasks;

import com.facebook.react.bridge.WritableMap;

/** Mirror of {@code HeadlessJsTaskConfig}: which task to run, its data, its timeout (ms) and whether it may run in front. */
public class HeadlessJsTaskConfig {
    private final String taskKey;
    private final WritableMap data;
    private final long timeout;
    private final boolean allowedInForeground;

    public HeadlessJsTaskConfig(String taskKey, WritableMap data) { this(taskKey, data, 0, false); }

    public HeadlessJsTaskConfig(String taskKey, WritableMap data, long timeout) { this(taskKey, data, timeout, false); }

    public HeadlessJsTaskConfig(String taskKey, WritableMap data, long timeout, boolean isAllowedInForeground) {
        this.taskKey = taskKey;
        this.data = data;
        this.timeout = timeout;
        this.allowedInForeground = isAllowedInForeground;
    }

    public String getTaskKey() { return taskKey; }

    public WritableMap getData() { return data; }

    public long getTimeout() { return timeout; }

    public boolean isAllowedInForeground() { return allowedInForeground; }
}
