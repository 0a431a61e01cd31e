// The iOS half of the config plugin, as pure functions: Info.plist in, Info.plist out; entitlements in,
// entitlements out. The launch hook is not here: RingerAppDelegateSubscriber is registered through
// expo-module.config.json, so no AppDelegate text is ever edited.

import type { InfoPlist, JSONObject } from '@expo/config-plugins';
import type { ResolvedOptions } from './options';

/** Info.plist key the native half reads the server URL from at launch, before JavaScript runs. */
export const SERVER_URL_KEY = 'RingerServerURL';

/** Info.plist key naming the APNs environment (`sandbox` | `production`) of this build's push tokens. */
export const APNS_ENVIRONMENT_KEY = 'RingerAPNsEnvironment';

/**
 * Background modes a ringing app needs, as docs/ios-integration.md lists them for RingerKit: `voip` so
 * PushKit may launch the app for a call, `remote-notification` so the "answered elsewhere" and "cancelled"
 * background pushes reach a running app, `audio` so the call keeps its sound in the background.
 */
export const BACKGROUND_MODES: readonly string[] = ['voip', 'remote-notification', 'audio'];

/**
 * Adds `voip`, `remote-notification` and `audio` to `UIBackgroundModes` (keeping the modes the app had, in
 * order, without duplicates) and sets `RingerServerURL` and `RingerAPNsEnvironment`. Returns a new object.
 */
export function applyInfoPlist(plist: InfoPlist, options: ResolvedOptions): InfoPlist {
  const existing = Array.isArray(plist.UIBackgroundModes)
    ? plist.UIBackgroundModes.filter((mode): mode is string => typeof mode === 'string')
    : [];
  const modes = [...existing];
  for (const mode of BACKGROUND_MODES) {
    if (!modes.includes(mode)) {
      modes.push(mode);
    }
  }
  return {
    ...plist,
    UIBackgroundModes: modes,
    [SERVER_URL_KEY]: options.server,
    [APNS_ENVIRONMENT_KEY]: options.apnsEnvironment,
  };
}

/** The `aps-environment` entitlement value for an APNs environment: Apple spells sandbox `development`. */
export function apsEnvironment(options: ResolvedOptions): 'development' | 'production' {
  return options.apnsEnvironment === 'sandbox' ? 'development' : 'production';
}

/**
 * Sets the `aps-environment` entitlement (push notifications, which PushKit needs) to match
 * `RingerAPNsEnvironment`, keeping every other entitlement. Returns a new object.
 */
export function applyEntitlements(entitlements: JSONObject, options: ResolvedOptions): JSONObject {
  return { ...entitlements, 'aps-environment': apsEnvironment(options) };
}
