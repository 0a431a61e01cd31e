// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.os;

import java.util.UUID;

/** Mirror of {@code android.os.ParcelUuid}: a UUID that can travel in a Parcel. */
public final class ParcelUuid {
    private final UUID mUuid;

    public ParcelUuid(UUID uuid) { mUuid = uuid; }

    public static ParcelUuid fromString(String uuid) { return new ParcelUuid(UUID.fromString(uuid)); }

    public UUID getUuid() { return mUuid; }

    @Override public String toString() { return mUuid.toString(); }
    @Override public boolean equals(Object object) { return object instanceof ParcelUuid && mUuid.equals(((ParcelUuid) object).mUuid); }
    @Override public int hashCode() { return mUuid.hashCode(); }
}
