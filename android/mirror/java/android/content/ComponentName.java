// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content;

/** Mirror of {@code android.content.ComponentName}. */
public final class ComponentName {
    private final String mPackage;
    private final String mClass;

    public ComponentName(String pkg, String cls) { mPackage = pkg; mClass = cls; }
    public ComponentName(Context pkg, Class<?> cls) { this(pkg.getPackageName(), cls.getName()); }

    public String getPackageName() { return mPackage; }
    public String getClassName() { return mClass; }

    @Override public boolean equals(Object o) {
        if (!(o instanceof ComponentName)) return false;
        ComponentName other = (ComponentName) o;
        return mPackage.equals(other.mPackage) && mClass.equals(other.mClass);
    }
    @Override public int hashCode() { return mPackage.hashCode() * 31 + mClass.hashCode(); }
    @Override public String toString() { return "ComponentInfo{" + mPackage + "/" + mClass + "}"; }
}
