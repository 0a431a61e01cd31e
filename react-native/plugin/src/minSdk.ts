// The Android minSdk of the config plugin, as a function on android/gradle.properties. The package's Android half
// needs API 26 (react-native/android/build.gradle: `ringerMinSdk = 26`, never lowered by the app's minSdk), while
// React Native 0.79 and Expo SDK 53/54 start apps at 24, so without this the app's manifest merge fails
// ("uses-sdk:minSdkVersion 24 cannot be smaller than version 26 declared in library").
//
// The property is the one expo-build-properties writes for its `android.minSdkVersion` option
// (packages/expo-build-properties/src/android.ts: `propName: 'android.minSdkVersion'` through
// AndroidConfig.BuildProperties' `withGradleProperties` mod), and the one Expo's templates read:
// - Expo SDK 53 and later: settings.gradle calls `expoAutolinking.useExpoVersionCatalog()`, which makes the
//   `minSdk` version of the `expoLibs` catalog the gradle property `android.minSdkVersion` when it is set, else
//   React Native's gradle/libs.versions.toml (24 in 0.79) (packages/expo-modules-autolinking/android/
//   expo-gradle-plugin/expo-autolinking-settings-plugin/.../ExpoAutolinkingSettingsExtension.kt); the root
//   build.gradle's `apply plugin: "expo-root-project"` (ExpoRootProjectPlugin.kt) sets `ext.minSdkVersion` from
//   that catalog, and app/build.gradle reads `minSdkVersion rootProject.ext.minSdkVersion`.
// - Expo SDK 52 and before: the root build.gradle's `ext { minSdkVersion =
//   Integer.parseInt(findProperty('android.minSdkVersion') ?: '24') }`.
//
// Unlike expo-build-properties, which writes its value whatever was there, this only ever raises: a minSdk the app
// or another plugin set at 26 or higher stays.

import type { AndroidConfig } from '@expo/config-plugins';

type PropertiesItem = AndroidConfig.Properties.PropertiesItem;

/** The lowest Android API level the package runs on (react-native/android/build.gradle `ringerMinSdk`). */
export const ANDROID_MIN_SDK = 26;

/** The gradle.properties key Expo's templates read the app's minSdk from. */
export const MIN_SDK_PROPERTY = 'android.minSdkVersion';

/** What the edit did: the properties after it, and the value it raised (null when it added or kept the key). */
export interface MinSdkEdit {
  readonly properties: PropertiesItem[];
  /** The value the app had below 26 (or that was not a number), which was replaced; null otherwise. */
  readonly raised: string | null;
}

/**
 * The item Gradle reads `android.minSdkVersion` from: the last one (java.util.Properties keeps the last of a key
 * given twice). Keys and values are compared trimmed: Expo's parsePropertiesFile
 * (packages/@expo/config-plugins/src/android/Properties.ts) splits at the first `=` and keeps the spaces of
 * `android.minSdkVersion = 28`, which Gradle drops.
 */
function effectiveIndex(properties: readonly PropertiesItem[]): number {
  for (let index = properties.length - 1; index >= 0; index -= 1) {
    const item = properties[index];
    if (item?.type === 'property' && item.key.trim() === MIN_SDK_PROPERTY) {
      return index;
    }
  }
  return -1;
}

/**
 * Sets `android.minSdkVersion` to 26 unless gradle.properties already names 26 or higher; a value that is not a
 * whole number is replaced (Gradle would fail to parse it). Every other item stays as it was, in order; the key is
 * appended when absent. Returns new objects; the input is not changed.
 */
export function applyMinSdk(properties: readonly PropertiesItem[]): MinSdkEdit {
  const copy = properties.map((item) => ({ ...item }));
  const index = effectiveIndex(copy);
  const item = index === -1 ? undefined : copy[index];
  if (item === undefined || item.type !== 'property') {
    copy.push({ type: 'property', key: MIN_SDK_PROPERTY, value: String(ANDROID_MIN_SDK) });
    return { properties: copy, raised: null };
  }
  const current = item.value.trim();
  if (/^\d+$/.test(current) && Number(current) >= ANDROID_MIN_SDK) {
    return { properties: copy, raised: null };
  }
  copy[index] = { type: 'property', key: item.key, value: String(ANDROID_MIN_SDK) };
  return { properties: copy, raised: current };
}
