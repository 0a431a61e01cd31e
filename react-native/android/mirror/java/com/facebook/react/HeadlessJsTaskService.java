// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/HeadlessJsTaskService.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// React Native's starts a React instance when there is none (ReactApplication's ReactHost) and runs the task there;
// this mirror only records the configurations it was asked to run.
package com.facebook.react;

import android.app.Service;
import android.content.Intent;
import android.os.IBinder;
import com.facebook.react.jstasks.HeadlessJsTaskConfig;
import com.facebook.react.jstasks.HeadlessJsTaskEventListener;
import java.util.ArrayList;
import java.util.List;

/**
 * Mirror of {@code HeadlessJsTaskService}: a Service whose every start asks {@link #getTaskConfig} what to run;
 * {@code null} ignores the start (START_NOT_STICKY), else the task is started (START_REDELIVER_INTENT).
 */
public abstract class HeadlessJsTaskService extends Service implements HeadlessJsTaskEventListener {
    /** Mirror only: the configurations of the tasks started, in order. */
    public final List<HeadlessJsTaskConfig> mirrorStartedTasks = new ArrayList<HeadlessJsTaskConfig>();

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        HeadlessJsTaskConfig taskConfig = getTaskConfig(intent);
        if (taskConfig == null) return START_NOT_STICKY;
        startTask(taskConfig);
        return START_REDELIVER_INTENT;
    }

    protected HeadlessJsTaskConfig getTaskConfig(Intent intent) { return null; }

    @Override
    public IBinder onBind(Intent intent) { return null; }

    protected final void startTask(HeadlessJsTaskConfig taskConfig) { mirrorStartedTasks.add(taskConfig); }

    @Override
    public void onHeadlessJsTaskStart(int taskId) {}

    @Override
    public void onHeadlessJsTaskFinish(int taskId) {}
}
