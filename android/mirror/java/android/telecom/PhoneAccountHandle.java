// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

import android.content.ComponentName;

/** Mirror of {@code android.telecom.PhoneAccountHandle}. */
public final class PhoneAccountHandle {
    private final ComponentName mComponentName;
    private final String mId;

    public PhoneAccountHandle(ComponentName componentName, String id) {
        mComponentName = componentName;
        mId = id;
    }

    public ComponentName getComponentName() { return mComponentName; }
    public String getId() { return mId; }

    @Override public boolean equals(Object o) {
        if (!(o instanceof PhoneAccountHandle)) return false;
        PhoneAccountHandle other = (PhoneAccountHandle) o;
        return mComponentName.equals(other.mComponentName) && mId.equals(other.mId);
    }
    @Override public int hashCode() { return mComponentName.hashCode() * 31 + mId.hashCode(); }
}
