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
 * User activity types the app takes, as docs/ios-integration.md lists them: `INStartCallIntent` (iOS 13+) is what a
 * tap on one of the app's calls in the phone's Recents list continues with.
 */
export const USER_ACTIVITY_TYPES: readonly string[] = ['INStartCallIntent'];

/** Info.plist key of the text the microphone prompt shows; iOS ends an app that records without it. */
export const MICROPHONE_USAGE_KEY = 'NSMicrophoneUsageDescription';

/**
 * The microphone text to write: none when the Info.plist already has one (Expo's Info.plist provider merges the
 * app's `ios.infoPlist` into it before any plugin's mod runs, packages/@expo/config-plugins/src/plugins/
 * withIosBaseMods.ts, and expo-av, expo-audio and expo-camera write theirs the same way), or when the option is
 * `false`. Expo's `IOSConfig.Permissions.applyPermissions` lets a plugin's option replace the app's text and its
 * `false` delete the key; here the app's text always stays, and `false` only means "write nothing".
 */
function microphoneText(plist: InfoPlist, options: ResolvedOptions): string | null {
  const current = plist[MICROPHONE_USAGE_KEY];
  return typeof current === 'string' && current.trim() !== '' ? null : options.microphonePermission;
}

/** The strings of a list key, those the plist had first, then `added` that were not there, without duplicates. */
function mergedList(current: unknown, added: readonly string[]): string[] {
  const list = Array.isArray(current) ? current.filter((item): item is string => typeof item === 'string') : [];
  for (const item of added) {
    if (!list.includes(item)) {
      list.push(item);
    }
  }
  return list;
}

/**
 * Adds `voip`, `remote-notification` and `audio` to `UIBackgroundModes` and `INStartCallIntent` to
 * `NSUserActivityTypes` (a tap on a Ringer call in the phone's Recents reaches the app: `callBackRequested`), keeping
 * what the app had, in order, without duplicates; sets `RingerServerURL` and `RingerAPNsEnvironment`, and
 * `NSMicrophoneUsageDescription` when the app has no text of its own. Returns a new object.
 */
export function applyInfoPlist(plist: InfoPlist, options: ResolvedOptions): InfoPlist {
  const modes = mergedList(plist.UIBackgroundModes, BACKGROUND_MODES);
  const microphone = microphoneText(plist, options);
  return {
    ...plist,
    UIBackgroundModes: modes,
    NSUserActivityTypes: mergedList(plist['NSUserActivityTypes'], USER_ACTIVITY_TYPES),
    [SERVER_URL_KEY]: options.server,
    [APNS_ENVIRONMENT_KEY]: options.apnsEnvironment,
    ...(microphone === null ? {} : { [MICROPHONE_USAGE_KEY]: microphone }),
  };
}

/** The `aps-environment` entitlement value for an APNs environment: Apple spells sandbox `development`. */
export function apsEnvironment(options: ResolvedOptions): 'development' | 'production' {
  return options.apnsEnvironment === 'sandbox' ? 'development' : 'production';
}

/** The entitlement key of the APNs environment. */
export const APS_ENVIRONMENT_KEY = 'aps-environment';

/** What {@link applyEntitlements} did. */
export interface EntitlementsEdit {
  readonly entitlements: JSONObject;
  /**
   * The `aps-environment` the entitlements held when it differed from the one written, as text; null when there
   * was none or it agreed. Another value comes from the app's `ios.entitlements` or from another plugin, such as
   * expo-notifications, whose `mode` option (default `development`) sets the same entitlement.
   */
  readonly replaced: string | null;
}

/**
 * Sets the `aps-environment` entitlement (push notifications, which PushKit needs) to match
 * `RingerAPNsEnvironment`, keeping every other entitlement, and says which other value it replaced: the option
 * wins, since the Info.plist key the native half reads must name the same APNs host as the entitlement the
 * tokens come from. Returns a new object.
 */
export function applyEntitlements(entitlements: JSONObject, options: ResolvedOptions): EntitlementsEdit {
  const written = apsEnvironment(options);
  const current = entitlements[APS_ENVIRONMENT_KEY];
  const differs = current !== undefined && current !== written;
  const replaced = !differs ? null : typeof current === 'string' ? current : JSON.stringify(current);
  return { entitlements: { ...entitlements, [APS_ENVIRONMENT_KEY]: written }, replaced };
}
