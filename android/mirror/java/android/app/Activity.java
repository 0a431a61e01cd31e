// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.ContextWrapper;
import android.content.Intent;
import android.os.Bundle;

/**
 * Mirror of {@code android.app.Activity} (a ContextThemeWrapper in Android, which this mirror leaves out): the intent
 * that started it. {@code getIntent} keeps the first intent unless the activity calls {@code setIntent}, as in Android
 * (a later one reaches {@code onNewIntent} only); {@code onCreate}, and {@code finish}, which in {@code onCreate} ends it
 * before it starts.
 */
public class Activity extends ContextWrapper {
    private Intent mIntent;
    private boolean mFinishing;

    public Activity() { super(null); }

    public Intent getIntent() { return mIntent; }
    public void setIntent(Intent newIntent) { mIntent = newIntent; }

    /** Android tells the application's activity callbacks here (onActivityCreated); the mirror does it before. */
    protected void onCreate(Bundle savedInstanceState) {}

    /** The activity goes: Android destroys it without resuming it when called in onCreate. */
    public void finish() { mFinishing = true; }
    public boolean isFinishing() { return mFinishing; }

    /** Mirror only: Android's performCreate. */
    public void mirrorCreate(Bundle savedInstanceState) { onCreate(savedInstanceState); }
}
