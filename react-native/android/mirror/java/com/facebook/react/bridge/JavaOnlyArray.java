// COMPILE-ONLY mirror of React Native's Android API, NOT React Native: the real package, type and member names and
// parameter types of packages/react-native/ReactAndroid/src/main/java/com/facebook/react/bridge/JavaOnlyArray.kt
// at tag v0.79.0 (read with git show; the signatures used here are the same at v0.82.0), so that
// react-native/android compiles and is tested on a machine without React Native. Only what dev.ringer.reactnative
// uses is declared; bodies are test doubles; members named mirror... are not React Native API.
// React Native's own JVM tests use it as this mirror does: an array in plain Java, no JNI.
package com.facebook.react.bridge;

import java.util.ArrayList;
import java.util.List;

/** Mirror of {@code JavaOnlyArray}: a {@link WritableArray} over a Java list. */
public class JavaOnlyArray implements ReadableArray, WritableArray {
    private final List<Object> mBackingList = new ArrayList<Object>();

    public JavaOnlyArray() {}

    /** An array of the given values (React Native's {@code JavaOnlyArray.of}). */
    public static JavaOnlyArray of(Object... values) {
        JavaOnlyArray array = new JavaOnlyArray();
        for (Object value : values) array.mBackingList.add(value);
        return array;
    }

    @Override public int size() { return mBackingList.size(); }
    @Override public ReadableType getType(int index) { return typeOf(mBackingList.get(index)); }
    @Override public boolean isNull(int index) { return mBackingList.get(index) == null; }
    @Override public String getString(int index) { return (String) mBackingList.get(index); }
    @Override public ReadableMap getMap(int index) { return (ReadableMap) mBackingList.get(index); }

    @Override public void pushArray(ReadableArray array) { mBackingList.add(array); }
    @Override public void pushBoolean(boolean value) { mBackingList.add(value); }
    @Override public void pushDouble(double value) { mBackingList.add(value); }
    @Override public void pushInt(int value) { mBackingList.add(value); }
    @Override public void pushLong(long value) { mBackingList.add(value); }
    @Override public void pushMap(ReadableMap map) { mBackingList.add(map); }
    @Override public void pushNull() { mBackingList.add(null); }
    @Override public void pushString(String value) { mBackingList.add(value); }

    /** Nested maps and arrays become HashMaps and ArrayLists, as React Native's does. */
    @Override public ArrayList<Object> toArrayList() {
        ArrayList<Object> out = new ArrayList<Object>();
        for (Object value : mBackingList) out.add(plain(value));
        return out;
    }

    @Override public String toString() { return mBackingList.toString(); }

    static ReadableType typeOf(Object value) {
        if (value == null) return ReadableType.Null;
        if (value instanceof Boolean) return ReadableType.Boolean;
        if (value instanceof Number) return ReadableType.Number;
        if (value instanceof String) return ReadableType.String;
        if (value instanceof ReadableMap) return ReadableType.Map;
        if (value instanceof ReadableArray) return ReadableType.Array;
        throw new IllegalArgumentException("not a JavaScript value: " + value.getClass());
    }

    static Object plain(Object value) {
        if (value instanceof ReadableMap) return ((ReadableMap) value).toHashMap();
        if (value instanceof ReadableArray) return ((ReadableArray) value).toArrayList();
        return value;
    }
}
