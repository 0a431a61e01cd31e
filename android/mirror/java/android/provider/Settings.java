// TEST-ONLY mirror of the Android SDK, NOT Android: real package, class, method names, parameter types and
// constant values (developer.android.com/reference), so dev.ringer.android compiles and is tested here as it is
// against android.jar. Bodies are minimal test doubles; members named mirror... are not Android API.
package android.provider;

/** Mirror of {@code android.provider.Settings}: the settings pages the adapters open. */
public final class Settings {
    private Settings() {}

    /**
     * API 34: the page where the user lets an app show full-screen notifications ("Manage full screen
     * intents"); the intent's data is {@code package:<the app's package>}.
     */
    public static final String ACTION_MANAGE_APP_USE_FULL_SCREEN_INTENT =
        "android.settings.MANAGE_APP_USE_FULL_SCREEN_INTENT";

    /** API 26: the notification settings of one app, named by {@link #EXTRA_APP_PACKAGE}. */
    public static final String ACTION_APP_NOTIFICATION_SETTINGS = "android.settings.APP_NOTIFICATION_SETTINGS";

    /** API 26: the package whose notification settings {@link #ACTION_APP_NOTIFICATION_SETTINGS} shows. */
    public static final String EXTRA_APP_PACKAGE = "android.provider.extra.APP_PACKAGE";

    /** API 23: the list of apps and whether each is exempt from battery optimisation; no input. */
    public static final String ACTION_IGNORE_BATTERY_OPTIMIZATION_SETTINGS =
        "android.settings.IGNORE_BATTERY_OPTIMIZATION_SETTINGS";
}
