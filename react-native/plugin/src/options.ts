// The options of the Ringer config plugin, as an app writes them in app.json / app.config.js:
//
//   "plugins": [["@ringer/react-native", { "server": "https://ringer.example.com", "apnsEnvironment": "sandbox" }]]

/** Which APNs environment the app's push tokens belong to: `sandbox` for development builds. */
export type ApnsEnvironment = 'sandbox' | 'production';

/** Android's call UIs (docs/android-integration.md, "Two call UIs"). */
export type AndroidCallUi = 'connection_service' | 'core_telecom';

/** The plugin's options as the app writes them. */
export interface RingerPluginOptions {
  /** The Ringer server's base URL, `https://…` (`http://` for a development server). Required. */
  readonly server: string;
  /**
   * `production` (the default) for App Store / TestFlight builds, `sandbox` for development builds signed
   * with a development profile. Sets both Info.plist `RingerAPNsEnvironment` and the `aps-environment`
   * entitlement, which must agree or VoIP pushes go to the wrong APNs host.
   */
  readonly apnsEnvironment?: ApnsEnvironment;
  /**
   * iOS: the text iOS shows when the app first asks for the microphone (Info.plist `NSMicrophoneUsageDescription`,
   * without which iOS ends an app that starts recording). Written only when the Info.plist has no text of its own:
   * one from the app's `ios.infoPlist` or from another plugin (expo-av, expo-audio, expo-camera) stays. Default
   * {@link DEFAULT_MICROPHONE_PERMISSION}; `false` writes nothing and leaves the key to the app.
   */
  readonly microphonePermission?: string | false;
  /**
   * Android: the activity the call screen and a notification tap open, instead of the app's launch activity:
   * a class name, fully qualified (`com.example.CallActivity`) or relative to the app's package
   * (`.CallActivity`), which prebuild expands with `android.package`.
   */
  readonly callActivity?: string;
  /**
   * Android: the small icon of the call notification, a drawable resource of the app (`ic_stat_call` or
   * `@drawable/ic_stat_call`); the app icon when not given.
   */
  readonly notificationIcon?: string;
  /**
   * Android: `true` when the app registered a Headless JS task with `Ringer.registerCallAnsweredTask` and wants
   * it started after a call is answered while no JavaScript runs (meta-data
   * `dev.ringer.headless_task_after_answer`). Not given: no meta-data item, so no task.
   */
  readonly headlessTaskAfterAnswer?: boolean;
  /**
   * Android: the call UI calls show through, `connection_service` (the SDK's self-managed ConnectionService, its
   * default) or `core_telecom` (Jetpack Core-Telecom, which the package's Android module depends on) (meta-data
   * `dev.ringer.call_ui`). Not given: no meta-data item, so the SDK's default.
   */
  readonly callUi?: AndroidCallUi;
}

/** The options after checking, with defaults filled in. */
export interface ResolvedOptions {
  readonly server: string;
  readonly apnsEnvironment: ApnsEnvironment;
  /** The microphone text to write when the app has none; `null` for `false` (write nothing). */
  readonly microphonePermission: string | null;
  /** As given: relative names are expanded with `android.package` at prebuild (android.ts). */
  readonly callActivity: string | null;
  /** As a resource reference, e.g. `@drawable/ic_stat_call`. */
  readonly notificationIcon: string | null;
  /** `null` when not given. */
  readonly headlessTaskAfterAnswer: boolean | null;
  /** `null` when not given. */
  readonly callUi: AndroidCallUi | null;
}

/**
 * The microphone text when the app gives none, in the words of Expo's own plugins (expo-av, expo-audio and
 * expo-camera say "Allow $(PRODUCT_NAME) to access your microphone"); Xcode replaces `$(PRODUCT_NAME)` with the
 * app's name when it builds the Info.plist.
 */
export const DEFAULT_MICROPHONE_PERMISSION = 'Allow $(PRODUCT_NAME) to use the microphone for calls.';

const SERVER_URL = /^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i;
/** A Java class name, fully qualified or relative (`.CallActivity`, `.ui.CallActivity`, `CallActivity`). */
const CLASS_NAME = /^\.?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const RESOURCE = /^(?:@(drawable|mipmap)\/)?([a-z][a-z0-9_]*)$/;

function fail(message: string): never {
  throw new Error(`@ringer/react-native config plugin: ${message}`);
}

function optionalString(value: unknown, name: string): string | null {
  if (value === undefined || value === null) {
    return null;
  }
  return typeof value === 'string' ? value : fail(`${name} must be a string.`);
}

/** `microphonePermission`: the default when not given, null for `false`, else a text that is not blank. */
function microphoneText(value: unknown): string | null {
  if (value === false) {
    return null;
  }
  if (value === undefined || value === null) {
    return DEFAULT_MICROPHONE_PERMISSION;
  }
  return typeof value === 'string' && value.trim() !== ''
    ? value
    : fail('microphonePermission must be the sentence the microphone prompt shows, or false.');
}

/**
 * Checks the plugin's options and fills in the defaults.
 * @throws Error naming the option, so `expo prebuild` stops with a message the app developer can act on.
 */
export function resolveOptions(raw: unknown): ResolvedOptions {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail('options { server: "https://…" } are required.');
  }
  const options = raw as { readonly [key: string]: unknown };
  const server = options['server'];
  if (typeof server !== 'string' || !SERVER_URL.test(server)) {
    return fail('server must be an http:// or https:// URL.');
  }
  const environment = options['apnsEnvironment'] ?? 'production';
  if (environment !== 'sandbox' && environment !== 'production') {
    return fail('apnsEnvironment must be "sandbox" or "production".');
  }
  const callActivity = optionalString(options['callActivity'], 'callActivity');
  if (callActivity !== null && !CLASS_NAME.test(callActivity)) {
    return fail('callActivity must be a class name such as ".CallActivity" or "com.example.CallActivity".');
  }
  const icon = optionalString(options['notificationIcon'], 'notificationIcon');
  const iconMatch = icon === null ? null : RESOURCE.exec(icon);
  if (icon !== null && iconMatch === null) {
    return fail('notificationIcon must be a drawable resource name such as "ic_stat_call".');
  }
  const headlessTask = options['headlessTaskAfterAnswer'] ?? null;
  if (headlessTask !== null && typeof headlessTask !== 'boolean') {
    return fail('headlessTaskAfterAnswer must be true or false.');
  }
  const callUi = options['callUi'] ?? null;
  if (callUi !== null && callUi !== 'connection_service' && callUi !== 'core_telecom') {
    return fail('callUi must be "connection_service" or "core_telecom".');
  }
  return {
    server,
    apnsEnvironment: environment,
    microphonePermission: microphoneText(options['microphonePermission']),
    callActivity,
    notificationIcon: iconMatch === null ? null : `@${iconMatch[1] ?? 'drawable'}/${iconMatch[2] ?? ''}`,
    headlessTaskAfterAnswer: headlessTask,
    callUi,
  };
}
