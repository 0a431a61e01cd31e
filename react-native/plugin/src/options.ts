// The options of the Ringer config plugin, as an app writes them in app.json / app.config.js:
//
//   "plugins": [["@ringer/react-native", { "server": "https://ringer.example.com", "apnsEnvironment": "sandbox" }]]

/** Which APNs environment the app's push tokens belong to: `sandbox` for development builds. */
export type ApnsEnvironment = 'sandbox' | 'production';

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
   * Android: the activity the call screen and a notification tap open, instead of the app's launch activity:
   * a class name, fully qualified (`com.example.CallActivity`) or relative to the app's package
   * (`.CallActivity`).
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
   * `dev.ringer.headless_task_after_answer`). Not given: an existing meta-data item is left alone.
   */
  readonly headlessTaskAfterAnswer?: boolean;
}

/** The options after checking, with defaults filled in. */
export interface ResolvedOptions {
  readonly server: string;
  readonly apnsEnvironment: ApnsEnvironment;
  readonly callActivity: string | null;
  /** As a resource reference, e.g. `@drawable/ic_stat_call`. */
  readonly notificationIcon: string | null;
  /** `null` when not given. */
  readonly headlessTaskAfterAnswer: boolean | null;
}

const SERVER_URL = /^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i;
const CLASS_NAME = /^(?:\.|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.)?[A-Za-z_]\w*$/;
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
  return {
    server,
    apnsEnvironment: environment,
    callActivity,
    notificationIcon: iconMatch === null ? null : `@${iconMatch[1] ?? 'drawable'}/${iconMatch[2] ?? ''}`,
    headlessTaskAfterAnswer: headlessTask,
  };
}
