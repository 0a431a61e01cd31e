// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.telecom;

import android.os.ParcelUuid;

/** Mirror of {@code android.telecom.CallEndpoint} (API 34): where a call's media can flow. */
public final class CallEndpoint {
    public static final int TYPE_UNKNOWN = -1;
    public static final int TYPE_EARPIECE = 1;
    public static final int TYPE_BLUETOOTH = 2;
    public static final int TYPE_WIRED_HEADSET = 3;
    public static final int TYPE_SPEAKER = 4;
    public static final int TYPE_STREAMING = 5;

    private final CharSequence mName;
    private final int mType;
    private final ParcelUuid mIdentifier;

    public CallEndpoint(CharSequence name, int type, ParcelUuid id) {
        mName = name;
        mType = type;
        mIdentifier = id;
    }

    public CharSequence getEndpointName() { return mName; }
    public int getEndpointType() { return mType; }
    public ParcelUuid getIdentifier() { return mIdentifier; }

    @Override public boolean equals(Object obj) {
        if (!(obj instanceof CallEndpoint)) return false;
        CallEndpoint other = (CallEndpoint) obj;
        return mType == other.mType && mIdentifier.equals(other.mIdentifier) && mName.toString().equals(other.mName.toString());
    }

    @Override public int hashCode() { return mIdentifier.hashCode() * 31 + mType; }
}
