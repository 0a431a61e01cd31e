// The Android manifest part of the config plugin, as a pure function: AndroidManifest (the xml2js object
// @expo/config-plugins hands mods) in, AndroidManifest out. Only `<meta-data>` of the application element is
// written: the library's own AndroidManifest.xml declares the components and permissions, and Android's
// manifest merger adds them to every app, Expo or bare.
//
// The manifest is read as xml2js leaves it, not as its type promises: Expo parses with xml2js' defaults
// (packages/@expo/config-plugins/src/utils/XML.ts, `new Parser()`), which leave `$` out of an element without
// attributes and turn an element with neither attributes nor children into a string. So no attribute is taken
// to be there (Expo's own `getMainApplication` reads `$['android:name'].endsWith` and fails with a TypeError on
// an `<application>` without `android:name`).

import type { AndroidConfig } from '@expo/config-plugins';
import type { ResolvedOptions } from './options';

type AndroidManifest = AndroidConfig.Manifest.AndroidManifest;

/** An element as xml2js makes it: attributes under `$` (absent when it has none), child elements by kind. */
type Element = { $?: { [name: string]: string | undefined }; [child: string]: unknown };

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

/** Meta-data choosing the Android call UI (`connection_service` or `core_telecom`). */
export const CALL_UI_META_DATA = 'dev.ringer.call_ui';

/** The element as an object, or null for what xml2js made a string (an element with nothing in it). */
function asElement(node: unknown): Element | null {
  return typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Element) : null;
}

/** An attribute's value, or undefined when the element, its attributes or the attribute are absent. */
function attribute(node: unknown, name: string): string | undefined {
  const value = asElement(node)?.$?.[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The application element: the one whose `android:name` ends in `.MainApplication` (as
 * `AndroidConfig.Manifest.getMainApplication` picks it), else the first. An empty `<application/>` is replaced by
 * an object in the manifest, so the meta-data can go in.
 * @throws Error when the manifest has no application element.
 */
function mainApplication(manifest: AndroidManifest): Element {
  const applications: unknown[] = Array.isArray(manifest.manifest.application) ? manifest.manifest.application : [];
  const named = applications.findIndex(
    (node) => attribute(node, 'android:name')?.endsWith('.MainApplication') === true,
  );
  const index = named === -1 ? 0 : named;
  if (index >= applications.length) {
    throw new Error('@ringer/react-native config plugin: AndroidManifest.xml has no <application> element.');
  }
  const found = asElement(applications[index]);
  if (found !== null) {
    return found;
  }
  const empty: Element = {};
  applications[index] = empty;
  return empty;
}

/**
 * Sets one `<meta-data>` item: updates the item of that name if there is one (dropping the other of
 * `android:value` / `android:resource`), else appends it.
 */
function setMetaData(application: Element, name: string, kind: 'value' | 'resource', value: string): void {
  const items: unknown[] = Array.isArray(application['meta-data']) ? application['meta-data'] : [];
  const existing = asElement(items.find((item) => attribute(item, 'android:name') === name));
  const attributes = existing?.$;
  if (attributes === undefined) {
    items.push({ $: { 'android:name': name, [`android:${kind}`]: value } });
  } else {
    attributes[`android:${kind}`] = value;
    delete attributes[kind === 'value' ? 'android:resource' : 'android:value'];
  }
  application['meta-data'] = items;
}

/** Removes every `<meta-data>` item of that name; items of other names stay as they were, in order. */
function removeMetaData(application: Element, name: string): void {
  const items = application['meta-data'];
  if (Array.isArray(items)) {
    application['meta-data'] = items.filter((item: unknown) => attribute(item, 'android:name') !== name);
  }
}

/**
 * The class a manifest name stands for in an app whose package is `androidPackage`, by Android's own rule
 * (frameworks/base ParsingUtils.buildClassName: a name starting with `.`, or with no `.` at all, is relative to
 * the package). Expo's prebuild makes `android.package` the Gradle `namespace` and `applicationId`
 * (AndroidConfig.Package.setPackageInBuildGradle), the package Android resolves the manifest's relative names
 * against; expanding here spares the native half a guess at run time, where a build's applicationIdSuffix makes
 * the process's package name differ from it.
 * @throws Error when `name` is relative and there is no package to expand it with.
 */
export function qualifiedClassName(name: string, androidPackage: string | undefined): string {
  const relative = name.startsWith('.') ? name : name.includes('.') ? null : `.${name}`;
  if (relative === null) {
    return name;
  }
  if (androidPackage === undefined || androidPackage === '') {
    throw new Error(
      `@ringer/react-native config plugin: callActivity "${name}" is relative to the app's package, but ` +
        'android.package is not set. Set android.package in app.json, or give callActivity as a full class name ' +
        'such as "com.example.CallActivity".',
    );
  }
  return androidPackage + relative;
}

/**
 * Writes the meta-data the plugin owns into the application element, so that it says what the options say now:
 * `dev.ringer.server` always; `dev.ringer.call_activity` (fully qualified with `androidPackage`),
 * `dev.ringer.notification_icon`, `dev.ringer.headless_task_after_answer` and `dev.ringer.call_ui` when their options are given, and
 * removed when they are not (an earlier prebuild with other options wrote them). Every other item and attribute
 * the manifest had stays. Returns a new object; the input is not changed.
 * @throws Error when the manifest has no application element, or a relative `callActivity` has no package.
 */
export function applyAndroidManifest(
  manifest: AndroidManifest,
  options: ResolvedOptions,
  androidPackage: string | undefined,
): AndroidManifest {
  const callActivity = options.callActivity === null ? null : qualifiedClassName(options.callActivity, androidPackage);
  const headlessTask = options.headlessTaskAfterAnswer === null ? null : String(options.headlessTaskAfterAnswer);
  const owned: readonly (readonly [string, 'value' | 'resource', string | null])[] = [
    [CALL_ACTIVITY_META_DATA, 'value', callActivity],
    [NOTIFICATION_ICON_META_DATA, 'resource', options.notificationIcon],
    [HEADLESS_TASK_META_DATA, 'value', headlessTask],
    [CALL_UI_META_DATA, 'value', options.callUi],
  ];
  const copy = JSON.parse(JSON.stringify(manifest)) as AndroidManifest;
  const application = mainApplication(copy);
  setMetaData(application, SERVER_META_DATA, 'value', options.server);
  for (const [name, kind, value] of owned) {
    if (value === null) {
      removeMetaData(application, name);
    } else {
      setMetaData(application, name, kind, value);
    }
  }
  return copy;
}
