// The Android manifest part of the config plugin, as a pure function: AndroidManifest (the xml2js object
// @expo/config-plugins hands mods) in, AndroidManifest out. Only `<meta-data>` of the application element is
// written: the library's own AndroidManifest.xml declares the components and permissions, and Android's
// manifest merger adds them to every app, Expo or bare.

import type { AndroidConfig } from '@expo/config-plugins';
import type { ResolvedOptions } from './options';

type AndroidManifest = AndroidConfig.Manifest.AndroidManifest;
type ManifestApplication = AndroidConfig.Manifest.ManifestApplication;
type ManifestMetaData = AndroidConfig.Manifest.ManifestMetaData;

/** Meta-data the native half reads the server URL from at process start (RingerInitProvider). */
export const SERVER_META_DATA = 'dev.ringer.server';

/** Meta-data naming the call activity, when the app's launch activity is not the one. */
export const CALL_ACTIVITY_META_DATA = 'dev.ringer.call_activity';

/** Meta-data naming the call notification's small icon (a drawable resource). */
export const NOTIFICATION_ICON_META_DATA = 'dev.ringer.notification_icon';

/**
 * Meta-data turning on the Headless JS task after an answer (`"true"`), which the native half cannot learn from
 * JavaScript's registration.
 */
export const HEADLESS_TASK_META_DATA = 'dev.ringer.headless_task_after_answer';

/**
 * The application element: the one whose `android:name` ends in `.MainApplication` (as
 * `AndroidConfig.Manifest.getMainApplication` picks it), else the first.
 * @throws Error when the manifest has no application element.
 */
function mainApplication(manifest: AndroidManifest): ManifestApplication {
  const applications = manifest.manifest.application ?? [];
  const main =
    applications.find((application) => application.$['android:name'].endsWith('.MainApplication')) ??
    applications[0];
  if (main === undefined) {
    throw new Error('@ringer/react-native config plugin: AndroidManifest.xml has no <application> element.');
  }
  return main;
}

/**
 * Sets one `<meta-data>` item: updates the item of that name if there is one (dropping the other of
 * `android:value` / `android:resource`), else appends it.
 */
function setMetaData(application: ManifestApplication, name: string, kind: 'value' | 'resource', value: string): void {
  const items: ManifestMetaData[] = application['meta-data'] ?? [];
  const other = kind === 'value' ? 'android:resource' : 'android:value';
  const existing = items.find((item) => item.$['android:name'] === name);
  if (existing === undefined) {
    items.push({ $: { 'android:name': name, [`android:${kind}`]: value } });
  } else {
    existing.$[`android:${kind}`] = value;
    delete existing.$[other];
  }
  application['meta-data'] = items;
}

/**
 * Writes `dev.ringer.server` (and `dev.ringer.call_activity`, `dev.ringer.notification_icon`,
 * `dev.ringer.headless_task_after_answer` when those options are given) into the application element, keeping
 * everything else the manifest had. An option not given leaves an existing item of that name alone. Returns a
 * new object; the input is not changed.
 */
export function applyAndroidManifest(manifest: AndroidManifest, options: ResolvedOptions): AndroidManifest {
  const copy = JSON.parse(JSON.stringify(manifest)) as AndroidManifest;
  const application = mainApplication(copy);
  setMetaData(application, SERVER_META_DATA, 'value', options.server);
  if (options.callActivity !== null) {
    setMetaData(application, CALL_ACTIVITY_META_DATA, 'value', options.callActivity);
  }
  if (options.notificationIcon !== null) {
    setMetaData(application, NOTIFICATION_ICON_META_DATA, 'resource', options.notificationIcon);
  }
  if (options.headlessTaskAfterAnswer !== null) {
    setMetaData(application, HEADLESS_TASK_META_DATA, 'value', String(options.headlessTaskAfterAnswer));
  }
  return copy;
}
