// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

import android.content.ContextWrapper;
import android.content.Intent;

/**
 * Mirror of {@code android.app.Activity} (a ContextThemeWrapper in Android, which this mirror leaves out): the intent
 * that started it. {@code getIntent} keeps the first intent unless the activity calls {@code setIntent}, as in Android
 * (a later one reaches {@code onNewIntent} only).
 */
public class Activity extends ContextWrapper {
    private Intent mIntent;

    public Activity() { super(null); }

    public Intent getIntent() { return mIntent; }
    public void setIntent(Intent newIntent) { mIntent = newIntent; }
}
