// The Expo config plugin of @ringer/react-native (app.plugin.js requires this file's build). The `withX`
// wrappers below only hand each native file to a pure function of ios.ts, android.ts and gradle.ts, which
// the tests run directly; @expo/config-plugins is the app's own (every Expo app has it).
//
// It also raises the iOS deployment target to 16.0 (RingerKitApple's floor; Expo SDK 53 starts at 15.1) and the
// Android minSdk to 26 (the Android half's; React Native 0.79 and Expo SDK 53/54 start at 24), the way
// expo-build-properties sets them: deploymentTarget.ts, minSdk.ts.
//
// What it does not do, on purpose:
// - edit AppDelegate: the native half starts from RingerAppDelegateSubscriber, listed in
//   expo-module.config.json, so Swift and Objective-C AppDelegates alike are left alone;
// - add Android components or permissions: the library's AndroidManifest.xml declares them and Android's
//   manifest merger adds them;
// - copy google-services.json: Expo copies `android.googleServicesFile` itself.

import {
  WarningAggregator,
  createRunOncePlugin,
  withAndroidManifest,
  withAppBuildGradle,
  withEntitlementsPlist,
  withGradleProperties,
  withInfoPlist,
  withPodfileProperties,
  withProjectBuildGradle,
  withXcodeProject,
} from '@expo/config-plugins';
import type {
  AndroidConfig,
  ConfigPlugin,
  ExportedConfigWithProps,
  GradleProjectFile,
  JSONObject,
  Mod,
} from '@expo/config-plugins';
import type { ExpoConfig } from '@expo/config-types';
import { applyAndroidManifest } from './android';
import { applyPodfileProperties, raiseAppDeploymentTarget } from './deploymentTarget';
import { addGoogleServicesClasspath, applyGoogleServicesPlugin } from './gradle';
import type { GradleEdit } from './gradle';
import { MIN_SDK_PROPERTY, applyMinSdk } from './minSdk';
import { APNS_ENVIRONMENT_KEY, APS_ENVIRONMENT_KEY, applyEntitlements, applyInfoPlist } from './ios';
import { resolveOptions } from './options';
import type { ResolvedOptions, RingerPluginOptions } from './options';

export type { ApnsEnvironment, RingerPluginOptions } from './options';

/** The name the plugin is recorded under in `_internal.pluginHistory`, so it runs once per prebuild. */
export const PLUGIN_NAME = '@ringer/react-native';

/**
 * Registers a mod that replaces one native file's contents with `transform` of them; `transform` also gets the
 * config as the mod sees it, with `android.package` as prebuild settles it (the package it was given, else
 * app.json's) after the app's plugins ran and before the mods run
 * (packages/@expo/prebuild-config/src/getPrebuildConfig.ts).
 */
function withTransform<T>(
  withMod: ConfigPlugin<Mod<T>>,
  config: ExpoConfig,
  transform: (results: T, config: ExportedConfigWithProps<T>) => T,
): ExpoConfig {
  return withMod(config, (mod) => {
    mod.modResults = transform(mod.modResults, mod);
    return mod;
  });
}

/**
 * Writes `aps-environment` as apnsEnvironment says, and warns when that replaces another value: the option wins,
 * since Info.plist `RingerAPNsEnvironment` follows it, but a value the app or expo-notifications wrote may have
 * been meant. It sees what the app's `ios.entitlements` and the mods that ran before it wrote: Expo runs the mod
 * registered last first (packages/@expo/config-plugins/src/plugins/withMod.ts calls the mod it wraps after its own
 * action), so those of plugins listed after this one, and of Expo's own plugins, which prebuild adds after the app's.
 */
function editEntitlements(entitlements: JSONObject, options: ResolvedOptions): JSONObject {
  const edit = applyEntitlements(entitlements, options);
  if (edit.replaced !== null) {
    const written = edit.entitlements[APS_ENVIRONMENT_KEY];
    WarningAggregator.addWarningIOS(
      APS_ENVIRONMENT_KEY,
      `@ringer/react-native replaced aps-environment "${edit.replaced}" (from ios.entitlements or another ` +
        `plugin, such as expo-notifications' mode) with "${String(written)}": its apnsEnvironment ` +
        `"${options.apnsEnvironment}" wins, because Info.plist ${APNS_ENVIRONMENT_KEY} must name the same APNs ` +
        `host. If "${edit.replaced}" was meant, set apnsEnvironment to match it.`,
    );
  }
  return edit.entitlements;
}

const withRingerIos: ConfigPlugin<ResolvedOptions> = (config, options) => {
  const withPlist = withTransform(withInfoPlist, config, (plist) => applyInfoPlist(plist, options));
  const withEntitlements = withTransform(withEntitlementsPlist, withPlist, (entitlements) =>
    editEntitlements(entitlements, options),
  );
  // iOS 16 at least, for the pods (Podfile.properties.json) and for the app target that imports them.
  const withPods = withTransform(withPodfileProperties, withEntitlements, applyPodfileProperties);
  return withTransform(withXcodeProject, withPods, raiseAppDeploymentTarget);
};

/** Applies one Gradle edit to a Groovy file; a Kotlin DSL file or a file with no place for it gets a warning. */
function editGradle(file: GradleProjectFile, edit: (contents: string) => GradleEdit): GradleProjectFile {
  if (file.language !== 'groovy') {
    WarningAggregator.addWarningAndroid(
      'android.googleServicesFile',
      `@ringer/react-native cannot add the Google services plugin to ${file.path} (not Groovy); add it by hand.`,
    );
    return file;
  }
  const result = edit(file.contents);
  if (result.status === 'unsupported') {
    WarningAggregator.addWarningAndroid('android.googleServicesFile', `@ringer/react-native: ${result.reason}.`);
  }
  return { ...file, contents: result.contents };
}

const withRingerFirebase: ConfigPlugin = (config) => {
  if (config.android?.googleServicesFile === undefined) {
    WarningAggregator.addWarningAndroid(
      'android.googleServicesFile',
      '@ringer/react-native receives calls through Firebase Cloud Messaging: set android.googleServicesFile to ' +
        "your app's google-services.json, or calls will not ring on Android.",
    );
    return config;
  }
  const withClasspath = withTransform(withProjectBuildGradle, config, (file) =>
    editGradle(file, addGoogleServicesClasspath),
  );
  return withTransform(withAppBuildGradle, withClasspath, (file) => editGradle(file, applyGoogleServicesPlugin));
};

/**
 * Raises `android.minSdkVersion` in gradle.properties to 26, and warns when that replaces a lower value the app
 * set (expo-build-properties' `android.minSdkVersion`, say). It sees what the mods that ran before it wrote: those
 * of plugins listed after this one (withMod.ts runs the mod registered last first), so an expo-build-properties
 * listed before `@ringer/react-native` has the last word and must not ask for less than 26.
 */
function editGradleProperties(
  properties: AndroidConfig.Properties.PropertiesItem[],
): AndroidConfig.Properties.PropertiesItem[] {
  const edit = applyMinSdk(properties);
  if (edit.raised !== null) {
    WarningAggregator.addWarningAndroid(
      MIN_SDK_PROPERTY,
      `@ringer/react-native raised ${MIN_SDK_PROPERTY} from "${edit.raised}" to 26: its Android half needs API 26, ` +
        'and a lower minSdk fails the manifest merge. Set expo-build-properties\' android.minSdkVersion to 26 or ' +
        'more to silence this.',
    );
  }
  return edit.properties;
}

const withRingerAndroid: ConfigPlugin<ResolvedOptions> = (config, options) => {
  const withManifest = withTransform(withAndroidManifest, config, (manifest, mod) =>
    applyAndroidManifest(manifest, options, mod.android?.package),
  );
  // minSdk 26 at least, the Android half's (android/gradle.properties, read by Expo's build.gradle).
  const withMinSdk = withTransform(withGradleProperties, withManifest, editGradleProperties);
  return withRingerFirebase(withMinSdk);
};

const withRinger: ConfigPlugin<RingerPluginOptions> = (config, props) => {
  const options = resolveOptions(props);
  return withRingerAndroid(withRingerIos(config, options), options);
};

/**
 * The config plugin: `"plugins": [["@ringer/react-native", { "server": "https://…" }]]`. Options:
 * `server` (required), `apnsEnvironment` (`"sandbox"` | `"production"`, default production),
 * `microphonePermission` (a sentence, or `false`), `callActivity`, `notificationIcon`, `headlessTaskAfterAnswer`
 * (see `RingerPluginOptions`). Runs once however often it is listed.
 * @throws Error at prebuild for missing or invalid options, or a relative `callActivity` without `android.package`.
 */
const plugin: ConfigPlugin<RingerPluginOptions> = createRunOncePlugin(withRinger, PLUGIN_NAME);

export default plugin;
