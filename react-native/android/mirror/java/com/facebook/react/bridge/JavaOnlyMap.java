// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/JavaOnlyMap.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// React Native's own JVM tests use it as this mirror does: a map in plain Java, no JNI.
package com.facebook.react.bridge;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Mirror of {@code JavaOnlyMap}: a {@link WritableMap} over a Java map. */
public class JavaOnlyMap implements ReadableMap, WritableMap {
    private final Map<String, Object> mBackingMap = new LinkedHashMap<String, Object>();

    public JavaOnlyMap() {}

    @Override public boolean hasKey(String name) { return mBackingMap.containsKey(name); }
    @Override public boolean isNull(String name) { return mBackingMap.get(name) == null; }
    @Override public String getString(String name) { return (String) mBackingMap.get(name); }
    @Override public boolean getBoolean(String name) { return (Boolean) mBackingMap.get(name); }
    @Override public double getDouble(String name) { return ((Number) mBackingMap.get(name)).doubleValue(); }
    @Override public ReadableMap getMap(String name) { return (ReadableMap) mBackingMap.get(name); }
    @Override public ReadableArray getArray(String name) { return (ReadableArray) mBackingMap.get(name); }

    @Override public ReadableType getType(String name) { return JavaOnlyArray.typeOf(mBackingMap.get(name)); }

    @Override public void putArray(String key, ReadableArray value) { mBackingMap.put(key, value); }
    @Override public void putBoolean(String key, boolean value) { mBackingMap.put(key, value); }
    @Override public void putDouble(String key, double value) { mBackingMap.put(key, value); }
    @Override public void putInt(String key, int value) { mBackingMap.put(key, value); }
    @Override public void putLong(String key, long value) { mBackingMap.put(key, value); }
    @Override public void putMap(String key, ReadableMap value) { mBackingMap.put(key, value); }
    @Override public void putNull(String key) { mBackingMap.put(key, null); }
    @Override public void putString(String key, String value) { mBackingMap.put(key, value); }

    /** Nested maps and arrays become HashMaps and ArrayLists, as React Native's does. */
    @Override public HashMap<String, Object> toHashMap() {
        HashMap<String, Object> out = new HashMap<String, Object>();
        for (Map.Entry<String, Object> entry : mBackingMap.entrySet()) out.put(entry.getKey(), JavaOnlyArray.plain(entry.getValue()));
        return out;
    }

    @Override public String toString() { return mBackingMap.toString(); }
}
