// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

import java.io.File;

/** Mirror of {@code android.content.ContextWrapper}: every call goes to the base context. */
public class ContextWrapper extends Context {
    private Context mBase;

    public ContextWrapper(Context base) { mBase = base; }

    protected void attachBaseContext(Context base) {
        if (mBase != null) throw new IllegalStateException("Base context already set");
        mBase = base;
    }

    public Context getBaseContext() { return mBase; }

    @Override public Object getSystemService(String name) { return mBase.getSystemService(name); }
    @Override public String getPackageName() { return mBase.getPackageName(); }
    @Override public Context getApplicationContext() { return mBase.getApplicationContext(); }
    @Override public File getFilesDir() { return mBase.getFilesDir(); }
    @Override public File getNoBackupFilesDir() { return mBase.getNoBackupFilesDir(); }
    @Override public int checkSelfPermission(String permission) { return mBase.checkSelfPermission(permission); }
    @Override public ComponentName startForegroundService(Intent service) { return mBase.startForegroundService(service); }
    @Override public ComponentName startService(Intent service) { return mBase.startService(service); }
    @Override public boolean stopService(Intent service) { return mBase.stopService(service); }
    @Override public void startActivity(Intent intent) { mBase.startActivity(intent); }
    @Override public android.content.pm.PackageManager getPackageManager() { return mBase.getPackageManager(); }
    @Override public boolean mirrorAppVisible() { return mBase.mirrorAppVisible(); }

    /** Mirror only: the system attaching the base context to a Service or Application it created. */
    public void mirrorAttach(Context base) { attachBaseContext(base); }
}
