// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

import java.util.HashMap;
import java.util.Map;

/** Mirror of {@code android.os.Bundle}: string, boolean, int and nested-bundle values. */
public final class Bundle {
    private final Map<String, Object> mMap = new HashMap<String, Object>();

    public Bundle() {}

    public boolean containsKey(String key) { return mMap.containsKey(key); }
    public void putString(String key, String value) { mMap.put(key, value); }
    public String getString(String key) {
        Object v = mMap.get(key);
        return v instanceof String ? (String) v : null;
    }
    public void putBoolean(String key, boolean value) { mMap.put(key, value); }
    public boolean getBoolean(String key) { return getBoolean(key, false); }
    public boolean getBoolean(String key, boolean defaultValue) {
        Object v = mMap.get(key);
        return v instanceof Boolean ? (Boolean) v : defaultValue;
    }
    public void putInt(String key, int value) { mMap.put(key, value); }
    public int getInt(String key) { return getInt(key, 0); }
    public int getInt(String key, int defaultValue) {
        Object v = mMap.get(key);
        return v instanceof Integer ? (Integer) v : defaultValue;
    }
    public void putBundle(String key, Bundle value) { mMap.put(key, value); }
    public Bundle getBundle(String key) {
        Object v = mMap.get(key);
        return v instanceof Bundle ? (Bundle) v : null;
    }
    public void putParcelable(String key, Object value) { mMap.put(key, value); }
}
