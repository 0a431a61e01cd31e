// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content.pm;

import android.os.Bundle;

/** Mirror of {@code android.content.pm.PackageItemInfo}: the fields a manifest item has. */
public class PackageItemInfo {
    /** The item's name (for an application: its Application class), or null. */
    public String name;
    /** The package it belongs to. */
    public String packageName;
    /** Its icon's drawable resource, 0 when none. */
    public int icon;
    /** Its {@code <meta-data>}: filled in only when asked with {@link PackageManager#GET_META_DATA}; null when none. */
    public Bundle metaData;

    public PackageItemInfo() {}
}
