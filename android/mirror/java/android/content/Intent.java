// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

import android.net.Uri;
import java.util.HashMap;
import java.util.Map;

/** Mirror of {@code android.content.Intent}: action, data, component, flags and string/boolean extras. */
public class Intent {
    public static final int FLAG_ACTIVITY_NEW_TASK = 0x10000000;

    private String mAction;
    private Uri mData;
    private ComponentName mComponent;
    private String mPackage;
    private int mFlags;
    private final Map<String, Object> mExtras = new HashMap<String, Object>();

    public Intent() {}
    public Intent(String action) { mAction = action; }
    public Intent(Context packageContext, Class<?> cls) { mComponent = new ComponentName(packageContext, cls); }

    public Intent setAction(String action) { mAction = action; return this; }
    public String getAction() { return mAction; }
    public Intent setData(Uri data) { mData = data; return this; }
    public Uri getData() { return mData; }
    public Intent setComponent(ComponentName component) { mComponent = component; return this; }
    public ComponentName getComponent() { return mComponent; }
    public Intent setPackage(String packageName) { mPackage = packageName; return this; }
    public String getPackage() { return mPackage; }
    public Intent addFlags(int flags) { mFlags |= flags; return this; }
    public int getFlags() { return mFlags; }
    public Intent putExtra(String name, String value) { mExtras.put(name, value); return this; }
    public Intent putExtra(String name, boolean value) { mExtras.put(name, value); return this; }
    public String getStringExtra(String name) {
        Object v = mExtras.get(name);
        return v instanceof String ? (String) v : null;
    }
    public boolean getBooleanExtra(String name, boolean defaultValue) {
        Object v = mExtras.get(name);
        return v instanceof Boolean ? (Boolean) v : defaultValue;
    }
    public boolean hasExtra(String name) { return mExtras.containsKey(name); }

    /** Replaces every extra with src's (PendingIntent.FLAG_UPDATE_CURRENT does this to the kept intent). */
    public Intent replaceExtras(Intent src) {
        mExtras.clear();
        if (src != null) mExtras.putAll(src.mExtras);
        return this;
    }

    /**
     * Android's identity of intents for PendingIntent matching: action, data, package and component (type,
     * identifier and categories are not mirrored). Extras are NOT compared, which is why two calls' intents that
     * differ only in their extras are one PendingIntent.
     */
    public boolean filterEquals(Intent other) {
        if (other == null) return false;
        return eq(mAction, other.mAction) && eq(mData, other.mData) && eq(mPackage, other.mPackage)
            && eq(mComponent, other.mComponent);
    }

    private static boolean eq(Object a, Object b) { return a == null ? b == null : a.equals(b); }
}
