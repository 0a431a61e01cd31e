// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.Context;
import android.content.ContextWrapper;
import android.os.Bundle;
import java.util.ArrayList;
import java.util.List;

/** Mirror of {@code android.app.Application}: its lifecycle and the activity lifecycle callbacks. */
public class Application extends ContextWrapper {
    private final List<ActivityLifecycleCallbacks> mCallbacks = new ArrayList<ActivityLifecycleCallbacks>();

    public Application() { super(null); }

    public void onCreate() {}

    /** Android's Application is its own application context (ContextWrapper would ask the base). */
    @Override public Context getApplicationContext() { return this; }

    public void registerActivityLifecycleCallbacks(ActivityLifecycleCallbacks callback) {
        synchronized (mCallbacks) { mCallbacks.add(callback); }
    }

    public void unregisterActivityLifecycleCallbacks(ActivityLifecycleCallbacks callback) {
        synchronized (mCallbacks) { mCallbacks.remove(callback); }
    }

    /** Mirror of {@code Application.ActivityLifecycleCallbacks} (API 29's pre/post defaults left out). */
    public interface ActivityLifecycleCallbacks {
        void onActivityCreated(Activity activity, Bundle savedInstanceState);
        void onActivityStarted(Activity activity);
        void onActivityResumed(Activity activity);
        void onActivityPaused(Activity activity);
        void onActivityStopped(Activity activity);
        void onActivitySaveInstanceState(Activity activity, Bundle outState);
        void onActivityDestroyed(Activity activity);
    }

    /**
     * Mirror only: Android creating [activity] for [intent] and bringing it to the front (Activity.onCreate, onStart,
     * onResume each tell the callbacks, in that order; the subclass's onCreate runs after its super.onCreate told
     * them). An activity that finished in onCreate is destroyed instead of started.
     */
    public void mirrorStartActivity(Activity activity, android.content.Intent intent) {
        activity.setIntent(intent);
        for (ActivityLifecycleCallbacks callback : snapshot()) callback.onActivityCreated(activity, null);
        activity.mirrorCreate(null);
        if (activity.isFinishing()) {
            for (ActivityLifecycleCallbacks callback : snapshot()) callback.onActivityDestroyed(activity);
            return;
        }
        for (ActivityLifecycleCallbacks callback : snapshot()) callback.onActivityStarted(activity);
        for (ActivityLifecycleCallbacks callback : snapshot()) callback.onActivityResumed(activity);
    }

    /**
     * Mirror only: a running activity brought to the front with a new intent (Android calls onNewIntent, which the
     * caller plays, then onResume, which tells the callbacks); its getIntent stays the first.
     */
    public void mirrorResumeActivity(Activity activity) {
        for (ActivityLifecycleCallbacks callback : snapshot()) callback.onActivityResumed(activity);
    }

    private List<ActivityLifecycleCallbacks> snapshot() {
        synchronized (mCallbacks) { return new ArrayList<ActivityLifecycleCallbacks>(mCallbacks); }
    }
}
