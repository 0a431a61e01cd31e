// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

import java.io.File;

/** Mirror of {@code android.content.Context}: the abstract methods the adapters call. */
public abstract class Context {
    public static final String NOTIFICATION_SERVICE = "notification";
    public static final String TELECOM_SERVICE = "telecom";
    public static final String POWER_SERVICE = "power";

    public abstract Object getSystemService(String name);
    public abstract String getPackageName();
    public abstract Context getApplicationContext();
    public abstract File getFilesDir();
    /**
     * API 21: files the system never backs up (abstract in Android). Mirror body: a folder inside getFilesDir(), so a
     * test's one storage folder holds everything (Android's is a sibling of filesDir).
     */
    public File getNoBackupFilesDir() { return new File(getFilesDir(), "no_backup"); }
    /** Returns PackageManager.PERMISSION_GRANTED or PERMISSION_DENIED. */
    public abstract int checkSelfPermission(String permission);
    /** API 26. Throws IllegalStateException (API 31: ForegroundServiceStartNotAllowedException) when not allowed. */
    public abstract ComponentName startForegroundService(Intent service);
    /**
     * Starts a (background) service. Throws IllegalStateException when the app may not start one: from API 26, an
     * app in the background (no visible activity, no foreground service; developer.android.com, "Background
     * Execution Limits").
     */
    public abstract ComponentName startService(Intent service);
    public abstract boolean stopService(Intent service);
    /** Throws ActivityNotFoundException (a RuntimeException) when nothing handles the intent. */
    public abstract void startActivity(Intent intent);
    public abstract android.content.pm.PackageManager getPackageManager();

    /**
     * Mirror only: whether the app is visible now (an activity of it in the foreground), which is what lets a
     * foreground service started now use while-in-use permissions such as the microphone (Android:
     * "Restrictions on starting a foreground service from the background"). True unless the test's phone says.
     */
    public boolean mirrorAppVisible() { return true; }
}
