// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.content.pm;

import android.content.Intent;

/** Mirror of {@code android.content.pm.PackageManager}: the permission results and the system features. */
public abstract class PackageManager {
    public static final int PERMISSION_GRANTED = 0;
    public static final int PERMISSION_DENIED = -1;
    /** API 26; deprecated in API 33 for {@link #FEATURE_TELECOM}. */
    public static final String FEATURE_CONNECTION_SERVICE = "android.software.connectionservice";
    /** API 33: the device supports Telecom's APIs (some tablets, Chromebooks and watches do not). */
    public static final String FEATURE_TELECOM = "android.software.telecom";

    /** setComponentEnabledSetting's states and flag (values as in the SDK). */
    public static final int COMPONENT_ENABLED_STATE_DEFAULT = 0;
    public static final int COMPONENT_ENABLED_STATE_ENABLED = 1;
    public static final int COMPONENT_ENABLED_STATE_DISABLED = 2;
    public static final int DONT_KILL_APP = 0x00000001;

    /** getApplicationInfo's flag that fills in {@link ApplicationInfo#metaData}. */
    public static final int GET_META_DATA = 0x00000080;

    /** Mirror only: what getApplicationInfo gives for this app (its manifest's meta-data, its icon). */
    public ApplicationInfo mirrorApplicationInfo = new ApplicationInfo();
    /** Mirror only: what getLaunchIntentForPackage gives for this app; null: no launcher activity. */
    public Intent mirrorLaunchIntent;

    /** Mirror only (the real one is the system's). */
    public PackageManager() {}

    public abstract boolean hasSystemFeature(String featureName);

    /** Abstract in Android. Mirror body: this app's {@link #mirrorApplicationInfo}, any other package unknown. */
    public ApplicationInfo getApplicationInfo(String packageName, int flags) throws NameNotFoundException {
        if (mirrorApplicationInfo.packageName != null && !mirrorApplicationInfo.packageName.equals(packageName)) {
            throw new NameNotFoundException(packageName);
        }
        return mirrorApplicationInfo;
    }

    /**
     * Mirror only: each service's manifest android:foregroundServiceType, by class name, where the app's manifest says
     * other than the SDK's library manifest (CallForegroundService: phoneCall|microphone).
     */
    public final java.util.Map<String, Integer> mirrorServiceTypes = new java.util.concurrent.ConcurrentHashMap<String, Integer>();

    /** Abstract in Android: a service of the app as its merged manifest declares it. Mirror body: its types. */
    public ServiceInfo getServiceInfo(android.content.ComponentName component, int flags) throws NameNotFoundException {
        ServiceInfo info = new ServiceInfo();
        Integer declared = mirrorServiceTypes.get(component.getClassName());
        info.foregroundServiceType = declared != null ? declared
            : ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL | ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE;
        return info;
    }

    /** Mirror only: each component's enabled state as the app last set it, by class name. */
    public final java.util.Map<String, Integer> mirrorComponentStates = new java.util.concurrent.ConcurrentHashMap<String, Integer>();

    /** Abstract in Android: sets a component of the app enabled, disabled or back to its manifest's state. */
    public void setComponentEnabledSetting(android.content.ComponentName componentName, int newState, int flags) {
        mirrorComponentStates.put(componentName.getClassName(), newState);
    }

    /** Abstract in Android: the package's main launcher activity, or null. Mirror body: {@link #mirrorLaunchIntent}. */
    public Intent getLaunchIntentForPackage(String packageName) { return mirrorLaunchIntent; }

    /** Mirror of {@code PackageManager.NameNotFoundException} (an {@code AndroidException} in Android). */
    public static class NameNotFoundException extends Exception {
        public NameNotFoundException() {}
        public NameNotFoundException(String name) { super(name); }
    }
}
