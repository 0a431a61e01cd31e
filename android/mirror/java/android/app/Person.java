// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.app;

/** Mirror of {@code android.app.Person} (API 28). */
public final class Person {
    private final CharSequence mName;
    private final String mKey;

    private Person(Builder b) { mName = b.mName; mKey = b.mKey; }

    public CharSequence getName() { return mName; }
    public String getKey() { return mKey; }

    /** Mirror of {@code Person.Builder}. */
    public static class Builder {
        private CharSequence mName;
        private String mKey;

        public Builder() {}
        public Builder setName(CharSequence name) { mName = name; return this; }
        public Builder setKey(String key) { mKey = key; return this; }
        public Person build() { return new Person(this); }
    }
}
