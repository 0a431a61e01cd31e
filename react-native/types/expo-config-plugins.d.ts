// Hand-written declarations of the parts of @expo/config-plugins and @expo/config-types that the Ringer config
// plugin uses, so that `tsc --strict` can check the plugin here. At run time the plugin requires the real
// @expo/config-plugins that every Expo app has; these are for this repository's build only (not shipped).
//
// Each declaration names the file of expo/expo it mirrors and the commit it was read at. The shapes used here
// are the same in Expo SDK 53 (config-plugins 10) and later.

declare module '@expo/config-types' {
  /**
   * The subset of `interface ExpoConfig` in packages/@expo/config-types/src/ExpoConfig.ts
   * (expo/expo@0417b0a) the plugin reads: `name`, `slug`, `ios.infoPlist`, `ios.entitlements`,
   * `android.package` (the application id and Gradle namespace, AndroidConfig.Package in
   * packages/@expo/config-plugins/src/android/Package.ts, expo/expo@05a852a), `android.googleServicesFile` (the
   * app's google-services.json, copied by Expo's own prebuild) and `_internal.pluginHistory` (written by
   * createRunOncePlugin).
   */
  export interface ExpoConfig {
    name: string;
    slug: string;
    ios?: {
      infoPlist?: { [key: string]: unknown };
      entitlements?: { [key: string]: unknown };
      [key: string]: unknown;
    };
    android?: {
      package?: string;
      googleServicesFile?: string;
      [key: string]: unknown;
    };
    _internal?: { pluginHistory?: { [key: string]: unknown }; [key: string]: unknown };
    [key: string]: unknown;
  }
}

declare module '@expo/config-plugins' {
  import type { ExpoConfig } from '@expo/config-types';

  /** Mirrors `type JSONValue` of @expo/json-file, as IosConfig.types.ts uses it. */
  export type JSONValue = boolean | number | string | null | JSONValue[] | { [key: string]: JSONValue | undefined };

  /** Mirrors `type JSONObject` of @expo/json-file: the entitlements mod's result type. */
  export type JSONObject = { [key: string]: JSONValue | undefined };

  /**
   * Mirrors `type InfoPlist` in packages/@expo/config-plugins/src/ios/IosConfig.types.ts (expo/expo@11d9d4c):
   * `Record<string, JSONValue | undefined> & { UIBackgroundModes?: string[]; ... }` (only the key used here).
   */
  export type InfoPlist = { [key: string]: JSONValue | undefined } & { UIBackgroundModes?: string[] };

  /**
   * Mirrors `type ConfigPlugin<Props = void>` in packages/@expo/config-plugins/src/Plugin.types.ts
   * (expo/expo@0b5908b).
   */
  export type ConfigPlugin<Props = void> = (config: ExpoConfig, props: Props) => ExpoConfig;

  /** Mirrors the read-only parts of `interface ModProps` in Plugin.types.ts (expo/expo@0b5908b). */
  export interface ModProps {
    readonly projectRoot: string;
    readonly platformProjectRoot: string;
    readonly modName: string;
    readonly platform: 'ios' | 'android';
    readonly introspect: boolean;
  }

  /** Mirrors `interface ExportedConfigWithProps<Data>` in Plugin.types.ts (expo/expo@0b5908b). */
  export interface ExportedConfigWithProps<Data> extends ExpoConfig {
    modResults: Data;
    modRequest: ModProps;
    readonly modRawConfig: ExpoConfig;
  }

  /** Mirrors `type Mod<Props>` in Plugin.types.ts (expo/expo@0b5908b), without the provider flags. */
  export type Mod<Props> = (
    config: ExportedConfigWithProps<Props>,
  ) => ExportedConfigWithProps<Props> | Promise<ExportedConfigWithProps<Props>>;

  /**
   * Mirrors `interface ProjectFile` / `type GradleProjectFile = ProjectFile<'groovy' | 'kt'>` in
   * packages/@expo/config-plugins/src/android/Paths.ts (expo/expo@3ec0b10).
   */
  export interface GradleProjectFile {
    path: string;
    language: 'groovy' | 'kt';
    contents: string;
  }

  /**
   * The part of the `xcode` package's project (apache/cordova-node-xcode lib/pbxProject.js: every section is
   * `this.hash.project.objects[isa]`, mapping object ids to objects and `<id>_comment` to their comments) that the
   * plugin reads; @expo/config-plugins re-exports the package's `XcodeProject` type, the `xcodeproj` mod's result.
   */
  export interface XcodeProject {
    hash: { project: { objects: { [isa: string]: { [id: string]: unknown } | undefined } } };
  }

  /**
   * Mirrors `withPodfileProperties: ConfigPlugin<Mod<Record<string, string>>>` (the `podfileProperties` mod:
   * ios/Podfile.properties.json) in packages/@expo/config-plugins/src/plugins/ios-plugins.ts (expo/expo@9269607).
   */
  export const withPodfileProperties: ConfigPlugin<Mod<Record<string, string>>>;

  /** Mirrors `withXcodeProject: ConfigPlugin<Mod<XcodeProject>>` (the `xcodeproj` mod) in ios-plugins.ts (expo/expo@9269607). */
  export const withXcodeProject: ConfigPlugin<Mod<XcodeProject>>;

  /** Mirrors `withInfoPlist` in packages/@expo/config-plugins/src/plugins/ios-plugins.ts (expo/expo@0ea1df6). */
  export const withInfoPlist: ConfigPlugin<Mod<InfoPlist>>;

  /** Mirrors `withEntitlementsPlist` in ios-plugins.ts (expo/expo@0ea1df6). */
  export const withEntitlementsPlist: ConfigPlugin<Mod<JSONObject>>;

  /** Mirrors `withAndroidManifest` in packages/@expo/config-plugins/src/plugins/android-plugins.ts (expo/expo@0929333). */
  export const withAndroidManifest: ConfigPlugin<Mod<AndroidConfig.Manifest.AndroidManifest>>;

  /** Mirrors `withProjectBuildGradle` (android/build.gradle) in android-plugins.ts (expo/expo@0929333). */
  export const withProjectBuildGradle: ConfigPlugin<Mod<GradleProjectFile>>;

  /** Mirrors `withAppBuildGradle` (android/app/build.gradle) in android-plugins.ts (expo/expo@0929333). */
  export const withAppBuildGradle: ConfigPlugin<Mod<GradleProjectFile>>;

  /**
   * Mirrors `withGradleProperties: ConfigPlugin<Mod<Properties.PropertiesItem[]>>` (the `gradleProperties` mod:
   * android/gradle.properties) in packages/@expo/config-plugins/src/plugins/android-plugins.ts (expo/expo@9269607),
   * the mod expo-build-properties writes `android.minSdkVersion` through.
   */
  export const withGradleProperties: ConfigPlugin<Mod<AndroidConfig.Properties.PropertiesItem[]>>;

  /**
   * Mirrors `createRunOncePlugin<T>(plugin, name, version?)` in
   * packages/@expo/config-plugins/src/plugins/withRunOnce.ts (expo/expo@1c51497): records `name` in
   * `_internal.pluginHistory` and skips the plugin when it is already there.
   */
  export function createRunOncePlugin<T>(plugin: ConfigPlugin<T>, name: string, version?: string): ConfigPlugin<T>;

  /**
   * Mirrors `addWarningAndroid` / `addWarningIOS` in packages/@expo/config-plugins/src/utils/warnings.ts
   * (expo/expo@119b336), exported as `WarningAggregator` from src/index.ts (expo/expo@11cc8c4).
   */
  export namespace WarningAggregator {
    function addWarningAndroid(property: string, text: string, link?: string): void;
    function addWarningIOS(property: string, text: string, link?: string): void;
  }

  /**
   * Types of packages/@expo/config-plugins/src/android/Manifest.ts (expo/expo@1859076), exported as
   * `AndroidConfig.Manifest` from src/index.ts: the xml2js object shape of AndroidManifest.xml, where every
   * element's attributes sit under `$` and every child element kind is an array. As Expo declares them, not as
   * xml2js guarantees them: its default parser (src/utils/XML.ts, expo/expo@0321fd5) leaves `$` out of an element
   * without attributes and makes an empty element a string, so the plugin reads these through checks.
   */
  export namespace AndroidConfig {
    /**
     * Types of packages/@expo/config-plugins/src/android/Properties.ts (expo/expo@6587c49), exported as
     * `AndroidConfig.Properties` from src/android/index.ts (expo/expo@19805c5): gradle.properties as
     * `parsePropertiesFile` reads it, one item a line (a `#` comment without its `#` and leading spaces, an empty
     * line, or `key=value` split at the first `=` with the spaces around it kept).
     */
    namespace Properties {
      type PropertiesItem =
        | { type: 'comment'; value: string }
        | { type: 'empty' }
        | { type: 'property'; key: string; value: string };
    }

    namespace Manifest {
      /** Mirrors `type ManifestMetaData` (`<meta-data android:name android:value|android:resource>`). */
      interface ManifestMetaData {
        $: {
          'android:name': string;
          'android:value'?: string;
          'android:resource'?: string;
          [key: string]: string | undefined;
        };
      }

      /** Mirrors `type ManifestApplication`; other child kinds (activity, service, receiver...) pass through. */
      interface ManifestApplication {
        $: { 'android:name': string; [key: string]: string | undefined };
        'meta-data'?: ManifestMetaData[];
        [key: string]: unknown;
      }

      /** Mirrors `type AndroidManifest`. */
      interface AndroidManifest {
        manifest: {
          $: { 'xmlns:android': string; 'xmlns:tools'?: string; package?: string; [key: string]: string | undefined };
          application?: ManifestApplication[];
          [key: string]: unknown;
        };
      }
    }
  }
}
