// The Expo config plugin on real-shaped native files: an Info.plist and entitlements as @expo/plist parses
// them, an AndroidManifest as xml2js parses it (attributes under `$`, every child kind an array), and the
// Gradle files of an Expo SDK 53 prebuild. For each: what it adds, that it keeps what the app had, and that
// running it twice is running it once. Then the thin `withX` wrappers, through a fake @expo/config-plugins.

import './fakes/resolve';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Module = require('node:module');
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { AndroidConfig, InfoPlist, JSONObject, XcodeProject } from '@expo/config-plugins';
import * as fakeExpo from './fakes/expoConfigPlugins';
import plugin from '../plugin/src/index';
import { applyAndroidManifest, qualifiedClassName } from '../plugin/src/android';
import { addGoogleServicesClasspath, applyGoogleServicesPlugin } from '../plugin/src/gradle';
import { applyPodfileProperties, raiseAppDeploymentTarget } from '../plugin/src/deploymentTarget';
import { ANDROID_MIN_SDK, applyMinSdk } from '../plugin/src/minSdk';
import { applyEntitlements, applyInfoPlist } from '../plugin/src/ios';
import { DEFAULT_MICROPHONE_PERMISSION, resolveOptions } from '../plugin/src/options';
import type { ResolvedOptions } from '../plugin/src/options';

const OPTIONS: ResolvedOptions = resolveOptions({ server: 'https://ringer.example.com' });
/** The app's `android.package`, which Expo also makes its Gradle namespace and application id. */
const PACKAGE = 'com.example.ringerdemo';
const SANDBOX: ResolvedOptions = resolveOptions({
  server: 'https://ringer.example.com',
  apnsEnvironment: 'sandbox',
  callActivity: '.CallActivity',
  notificationIcon: 'ic_stat_call',
});

function infoPlist(): InfoPlist {
  return {
    CFBundleDevelopmentRegion: '$(DEVELOPMENT_LANGUAGE)',
    CFBundleDisplayName: 'Ringer Demo',
    CFBundleExecutable: '$(EXECUTABLE_NAME)',
    CFBundleIdentifier: '$(PRODUCT_BUNDLE_IDENTIFIER)',
    CFBundleURLTypes: [{ CFBundleURLSchemes: ['ringerdemo', 'com.example.ringerdemo'] }],
    LSRequiresIPhoneOS: true,
    NSMicrophoneUsageDescription: 'Calls need the microphone.',
    UIBackgroundModes: ['fetch', 'audio', 'remote-notification'],
    UILaunchStoryboardName: 'SplashScreen',
    UIRequiredDeviceCapabilities: ['arm64'],
  };
}

function entitlements(): JSONObject {
  return {
    'com.apple.developer.associated-domains': ['applinks:example.com'],
    'aps-environment': 'development',
  };
}

/** ios/Podfile.properties.json of an Expo SDK 53 prebuild. */
function podfileProperties(): Record<string, string> {
  return { 'expo.jsEngine': 'hermes', 'EX_DEV_CLIENT_NETWORK_INSPECTOR': 'true', newArchEnabled: 'true' };
}

/**
 * The objects of an Expo SDK 53 app's project.pbxproj as the `xcode` package parses them (ids to objects,
 * `<id>_comment` to comments, quoted strings kept quoted), with a widget extension beside the app: each target and
 * the project have a Debug and a Release configuration.
 */
function xcodeProject(): XcodeProject {
  const configuration = (name: string, target: string) => ({
    isa: 'XCBuildConfiguration',
    buildSettings: { IPHONEOS_DEPLOYMENT_TARGET: target, PRODUCT_NAME: '"$(TARGET_NAME)"', SWIFT_VERSION: '5.0' },
    name,
  });
  const list = (debug: string, release: string) => ({
    isa: 'XCConfigurationList',
    buildConfigurations: [
      { value: debug, comment: 'Debug' },
      { value: release, comment: 'Release' },
    ],
    defaultConfigurationName: 'Release',
  });
  return {
    hash: {
      project: {
        objects: {
          PBXNativeTarget: {
            '13B07F861A680F5B00A75B9A': {
              isa: 'PBXNativeTarget',
              buildConfigurationList: '13B07F931A680F5B00A75B9A',
              name: 'ringerdemo',
              productType: '"com.apple.product-type.application"',
            },
            '13B07F861A680F5B00A75B9A_comment': 'ringerdemo',
            '2D1A1A1A2B2B2B2B3C3C3C3C': {
              isa: 'PBXNativeTarget',
              buildConfigurationList: '2D1A1A1A2B2B2B2B3C3C3C40',
              name: 'widget',
              productType: '"com.apple.product-type.app-extension"',
            },
            '2D1A1A1A2B2B2B2B3C3C3C3C_comment': 'widget',
          },
          XCConfigurationList: {
            '13B07F931A680F5B00A75B9A': list('13B07F941A680F5B00A75B9A', '13B07F951A680F5B00A75B9A'),
            '13B07F931A680F5B00A75B9A_comment': 'Build configuration list for PBXNativeTarget "ringerdemo"',
            '2D1A1A1A2B2B2B2B3C3C3C40': list('2D1A1A1A2B2B2B2B3C3C3C41', '2D1A1A1A2B2B2B2B3C3C3C42'),
            '83CBB9FA1A601CBA00E9B192': list('83CBBA201A601CBA00E9B192', '83CBBA211A601CBA00E9B192'),
          },
          XCBuildConfiguration: {
            '13B07F941A680F5B00A75B9A': configuration('Debug', '15.1'),
            '13B07F941A680F5B00A75B9A_comment': 'Debug',
            '13B07F951A680F5B00A75B9A': configuration('Release', '15.1'),
            '2D1A1A1A2B2B2B2B3C3C3C41': configuration('Debug', '15.1'),
            '2D1A1A1A2B2B2B2B3C3C3C42': configuration('Release', '15.1'),
            '83CBBA201A601CBA00E9B192': configuration('Debug', '15.1'),
            '83CBBA211A601CBA00E9B192': configuration('Release', '15.1'),
          },
        },
      },
    },
  };
}

/** The IPHONEOS_DEPLOYMENT_TARGET of each build configuration, by id. */
function deploymentTargets(project: XcodeProject): { [id: string]: unknown } {
  const configurations = project.hash.project.objects['XCBuildConfiguration'] ?? {};
  const targets: { [id: string]: unknown } = {};
  for (const [id, value] of Object.entries(configurations)) {
    if (typeof value === 'object' && value !== null) {
      targets[id] = (value as { buildSettings: { IPHONEOS_DEPLOYMENT_TARGET: unknown } }).buildSettings.IPHONEOS_DEPLOYMENT_TARGET;
    }
  }
  return targets;
}

type Manifest = AndroidConfig.Manifest.AndroidManifest;

function manifest(): Manifest {
  return {
    manifest: {
      $: { 'xmlns:android': 'http://schemas.android.com/apk/res/android' },
      'uses-permission': [
        { $: { 'android:name': 'android.permission.INTERNET' } },
        { $: { 'android:name': 'android.permission.VIBRATE' } },
      ],
      queries: [{ intent: [{ action: [{ $: { 'android:name': 'android.intent.action.VIEW' } }] }] }],
      application: [
        {
          $: {
            'android:name': '.MainApplication',
            'android:label': '@string/app_name',
            'android:icon': '@mipmap/ic_launcher',
            'android:allowBackup': 'true',
          },
          'meta-data': [
            { $: { 'android:name': 'expo.modules.updates.ENABLED', 'android:value': 'false' } },
            { $: { 'android:name': 'dev.ringer.server', 'android:value': 'https://old.example.com' } },
          ],
          activity: [
            {
              $: { 'android:name': '.MainActivity', 'android:launchMode': 'singleTask', 'android:exported': 'true' },
              'intent-filter': [
                {
                  action: [{ $: { 'android:name': 'android.intent.action.MAIN' } }],
                  category: [{ $: { 'android:name': 'android.intent.category.LAUNCHER' } }],
                },
              ],
            },
          ],
        },
      ],
    },
  };
}

const PROJECT_BUILD_GRADLE = `// Top-level build file where you can add configuration options common to all sub-projects/modules.

buildscript {
    repositories {
        google()
        mavenCentral()
    }
    dependencies {
        classpath('com.android.tools.build:gradle')
        classpath('com.facebook.react:react-native-gradle-plugin')
        classpath('org.jetbrains.kotlin:kotlin-gradle-plugin')
    }
}

allprojects {
    repositories {
        google()
        mavenCentral()
        maven { url 'https://www.jitpack.io' }
    }
}

apply plugin: "expo-root-project"
apply plugin: "com.facebook.react.rootproject"
`;

const APP_BUILD_GRADLE = `apply plugin: "com.android.application"
apply plugin: "org.jetbrains.kotlin.android"
apply plugin: "com.facebook.react"

android {
    namespace 'com.example.ringerdemo'
    defaultConfig {
        applicationId 'com.example.ringerdemo'
        versionCode 1
        versionName "1.0.0"
    }
}

dependencies {
    implementation("com.facebook.react:react-android")
}
`;

type PropertiesItem = AndroidConfig.Properties.PropertiesItem;

/**
 * android/gradle.properties of an Expo SDK 53 prebuild as @expo/config-plugins' parsePropertiesFile hands it to the
 * `gradleProperties` mod (packages/@expo/config-plugins/src/android/Properties.ts): one item a line, a comment
 * without its `#`, `key=value` split at the first `=`. No `android.minSdkVersion`: the template leaves it to React
 * Native's version catalog (24).
 */
function gradleProperties(): PropertiesItem[] {
  return [
    { type: 'comment', value: 'Project-wide Gradle settings.' },
    { type: 'empty' },
    { type: 'comment', value: 'Specifies the JVM arguments used for the daemon process.' },
    { type: 'property', key: 'org.gradle.jvmargs', value: '-Xmx2048m -XX:MaxMetaspaceSize=512m' },
    { type: 'empty' },
    { type: 'property', key: 'org.gradle.parallel', value: 'true' },
    { type: 'property', key: 'android.useAndroidX', value: 'true' },
    { type: 'property', key: 'android.enablePngCrunchInReleaseBuilds', value: 'true' },
    { type: 'property', key: 'reactNativeArchitectures', value: 'armeabi-v7a,arm64-v8a,x86,x86_64' },
    { type: 'property', key: 'newArchEnabled', value: 'true' },
    { type: 'property', key: 'hermesEnabled', value: 'true' },
    { type: 'property', key: 'expo.gif.enabled', value: 'true' },
    { type: 'property', key: 'expo.webp.enabled', value: 'true' },
    { type: 'property', key: 'expo.webp.animated', value: 'false' },
    { type: 'property', key: 'EX_DEV_CLIENT_NETWORK_INSPECTOR', value: 'true' },
    { type: 'property', key: 'expo.useLegacyPackaging', value: 'false' },
  ];
}

/** The value Gradle reads for `key`: the last item of that key, compared trimmed as java.util.Properties does. */
function gradleProperty(items: readonly PropertiesItem[], key: string): string | undefined {
  const found = items.filter((item) => item.type === 'property' && item.key.trim() === key);
  const last = found[found.length - 1];
  return last?.type === 'property' ? last.value.trim() : undefined;
}

/** The named meta-data items of the first application, by name (items xml2js left without attributes are skipped). */
function metaData(result: Manifest): { readonly [name: string]: { readonly [key: string]: string | undefined } } {
  const items: unknown[] = result.manifest.application?.[0]?.['meta-data'] ?? [];
  const named = items
    .map((item) => (item as { $?: { [key: string]: string | undefined } } | null)?.$)
    .filter((attributes): attributes is { [key: string]: string | undefined } => typeof attributes?.['android:name'] === 'string');
  return Object.fromEntries(named.map((attributes) => [attributes['android:name'], attributes]));
}

describe('options', () => {
  test('server is required and must be an http(s) URL; apnsEnvironment defaults to production', () => {
    assert.throws(() => resolveOptions(undefined), { message: /server/ });
    assert.throws(() => resolveOptions({}), { message: /server/ });
    assert.throws(() => resolveOptions({ server: 'ringer.example.com' }), { message: /server/ });
    assert.throws(() => resolveOptions({ server: 'https://a.example', apnsEnvironment: 'development' }), {
      message: /apnsEnvironment/,
    });
    assert.throws(() => resolveOptions({ server: 'https://a.example', callActivity: 'Call Activity' }), {
      message: /callActivity/,
    });
    assert.throws(() => resolveOptions({ server: 'https://a.example', notificationIcon: 'icons/call.png' }), {
      message: /notificationIcon/,
    });
    assert.throws(() => resolveOptions({ server: 'https://a.example', headlessTaskAfterAnswer: 'yes' }), {
      message: /headlessTaskAfterAnswer/,
    });
    assert.throws(() => resolveOptions({ server: 'https://a.example', callUi: 'telecom' }), {
      message: /callUi must be "connection_service" or "core_telecom"/,
    });
    assert.deepEqual(OPTIONS, {
      server: 'https://ringer.example.com',
      apnsEnvironment: 'production',
      microphonePermission: 'Allow $(PRODUCT_NAME) to use the microphone for calls.',
      callActivity: null,
      notificationIcon: null,
      headlessTaskAfterAnswer: null,
      callUi: null,
    });
    assert.equal(SANDBOX.notificationIcon, '@drawable/ic_stat_call');
    assert.equal(resolveOptions({ server: 'http://10.0.2.2:8080', notificationIcon: '@mipmap/ic_call' }).notificationIcon, '@mipmap/ic_call');
    assert.equal(resolveOptions({ server: 'https://a.example', callActivity: 'com.example.Call' }).callActivity, 'com.example.Call');
    assert.equal(resolveOptions({ server: 'https://a.example', callActivity: '.ui.CallActivity' }).callActivity, '.ui.CallActivity');
  });

  test('microphonePermission defaults to a sentence naming the app, takes a text or false, and refuses the rest', () => {
    assert.equal(OPTIONS.microphonePermission, DEFAULT_MICROPHONE_PERMISSION);
    assert.ok(DEFAULT_MICROPHONE_PERMISSION.includes('$(PRODUCT_NAME)'));
    const own = 'Ringer Demo uses the microphone during calls.';
    assert.equal(resolveOptions({ server: 'https://a.example', microphonePermission: own }).microphonePermission, own);
    assert.equal(resolveOptions({ server: 'https://a.example', microphonePermission: false }).microphonePermission, null);
    for (const bad of [true, '', '   ', 42]) {
      assert.throws(() => resolveOptions({ server: 'https://a.example', microphonePermission: bad }), {
        message: /microphonePermission/,
      });
    }
  });
});

describe('Info.plist', () => {
  test('adds voip, remote-notification and audio to the modes the app had, without duplicates, and the Ringer keys', () => {
    const result = applyInfoPlist(infoPlist(), OPTIONS);
    assert.deepEqual(result.UIBackgroundModes, ['fetch', 'audio', 'remote-notification', 'voip']);
    assert.equal(result['RingerServerURL'], 'https://ringer.example.com');
    assert.equal(result['RingerAPNsEnvironment'], 'production');
    assert.deepEqual(result['NSUserActivityTypes'], ['INStartCallIntent']);
    assert.deepEqual({ ...result, UIBackgroundModes: undefined, NSUserActivityTypes: undefined, RingerServerURL: undefined, RingerAPNsEnvironment: undefined }, {
      ...infoPlist(),
      UIBackgroundModes: undefined,
      NSUserActivityTypes: undefined,
      RingerServerURL: undefined,
      RingerAPNsEnvironment: undefined,
    });
  });

  test('starts the background modes when there were none; twice is once; the input is untouched', () => {
    const bare: InfoPlist = { CFBundleIdentifier: 'com.example' };
    const once = applyInfoPlist(bare, SANDBOX);
    assert.deepEqual(once.UIBackgroundModes, ['voip', 'remote-notification', 'audio']);
    assert.deepEqual(once['NSUserActivityTypes'], ['INStartCallIntent']);
    assert.equal(once['RingerAPNsEnvironment'], 'sandbox');
    assert.deepEqual(applyInfoPlist(once, SANDBOX), once);
    assert.deepEqual(bare, { CFBundleIdentifier: 'com.example' });
  });

  test('keeps the user activity types the app had and adds INStartCallIntent once', () => {
    const result = applyInfoPlist({ NSUserActivityTypes: ['com.example.open-chat', 'INStartCallIntent', 7] }, OPTIONS);
    assert.deepEqual(result['NSUserActivityTypes'], ['com.example.open-chat', 'INStartCallIntent']);
  });

  test('sets the default microphone text when the app has none', () => {
    const result = applyInfoPlist({ CFBundleIdentifier: 'com.example' }, OPTIONS);
    assert.equal(result['NSMicrophoneUsageDescription'], 'Allow $(PRODUCT_NAME) to use the microphone for calls.');
    const blank = applyInfoPlist({ NSMicrophoneUsageDescription: ' ' }, OPTIONS);
    assert.equal(blank['NSMicrophoneUsageDescription'], DEFAULT_MICROPHONE_PERMISSION);
  });

  test('never replaces the microphone text the app or another plugin wrote, whatever microphonePermission says', () => {
    const own = resolveOptions({ server: 'https://ringer.example.com', microphonePermission: 'Ringer needs it.' });
    for (const options of [OPTIONS, own]) {
      assert.equal(applyInfoPlist(infoPlist(), options)['NSMicrophoneUsageDescription'], 'Calls need the microphone.');
    }
    assert.equal(applyInfoPlist({}, own)['NSMicrophoneUsageDescription'], 'Ringer needs it.');
  });

  test('microphonePermission false writes no microphone text and keeps the app\'s', () => {
    const off = resolveOptions({ server: 'https://ringer.example.com', microphonePermission: false });
    assert.equal('NSMicrophoneUsageDescription' in applyInfoPlist({ CFBundleIdentifier: 'com.example' }, off), false);
    assert.equal(applyInfoPlist(infoPlist(), off)['NSMicrophoneUsageDescription'], 'Calls need the microphone.');
  });
});

describe('entitlements', () => {
  test('aps-environment follows apnsEnvironment and every other entitlement is kept; twice is once', () => {
    const production = applyEntitlements(entitlements(), OPTIONS).entitlements;
    assert.deepEqual(production, { ...entitlements(), 'aps-environment': 'production' });
    const sandbox = applyEntitlements({}, SANDBOX).entitlements;
    assert.deepEqual(sandbox, { 'aps-environment': 'development' });
    assert.deepEqual(applyEntitlements(production, OPTIONS).entitlements, production);
  });

  test('says which other aps-environment it replaced, and nothing when there was none or it agreed', () => {
    assert.equal(applyEntitlements(entitlements(), OPTIONS).replaced, 'development');
    assert.equal(applyEntitlements({ 'aps-environment': 'production' }, SANDBOX).replaced, 'production');
    assert.equal(applyEntitlements(entitlements(), SANDBOX).replaced, null);
    assert.equal(applyEntitlements({}, OPTIONS).replaced, null);
  });
});

describe('iOS deployment target', () => {
  test('Podfile.properties.json gets ios.deploymentTarget 16.0, keeping the other properties; twice is once', () => {
    const input = podfileProperties();
    const once = applyPodfileProperties(input);
    assert.deepEqual(once, { ...podfileProperties(), 'ios.deploymentTarget': '16.0' });
    assert.deepEqual(applyPodfileProperties(once), once);
    assert.deepEqual(input, podfileProperties());
    const lower = applyPodfileProperties({ ...input, 'ios.deploymentTarget': '15.1' });
    assert.equal(lower['ios.deploymentTarget'], '16.0');
    assert.equal(applyPodfileProperties({ 'ios.deploymentTarget': 'latest' })['ios.deploymentTarget'], '16.0');
  });

  test('a higher deployment target stays as it is', () => {
    for (const higher of ['16.0', '16', '16.0.1', '16.4', '17.0', '18']) {
      assert.deepEqual(applyPodfileProperties({ 'ios.deploymentTarget': higher }), { 'ios.deploymentTarget': higher });
    }
  });

  test('the app target\'s configurations go to 16.0; extensions, the project and higher ones stay', () => {
    const project = xcodeProject();
    const apps = ['13B07F941A680F5B00A75B9A', '13B07F951A680F5B00A75B9A'];
    assert.equal(raiseAppDeploymentTarget(project), project);
    const after = deploymentTargets(project);
    for (const [id, target] of Object.entries(deploymentTargets(xcodeProject()))) {
      assert.equal(after[id], apps.includes(id) ? '16.0' : target, id);
    }
    const again = xcodeProject();
    raiseAppDeploymentTarget(again);
    raiseAppDeploymentTarget(again);
    assert.deepEqual(again, project);

    const higher = xcodeProject();
    const release = higher.hash.project.objects['XCBuildConfiguration']?.['13B07F951A680F5B00A75B9A'] as {
      buildSettings: { [key: string]: unknown };
    };
    release.buildSettings['IPHONEOS_DEPLOYMENT_TARGET'] = 17.2;
    raiseAppDeploymentTarget(higher);
    assert.deepEqual(
      [deploymentTargets(higher)['13B07F941A680F5B00A75B9A'], deploymentTargets(higher)['13B07F951A680F5B00A75B9A']],
      ['16.0', 17.2],
    );
  });
});

describe('AndroidManifest', () => {
  test('writes the server meta-data into the application, replacing an old value and keeping the rest', () => {
    const input = manifest();
    const result = applyAndroidManifest(input, OPTIONS, PACKAGE);
    assert.deepEqual(metaData(result), {
      'expo.modules.updates.ENABLED': { 'android:name': 'expo.modules.updates.ENABLED', 'android:value': 'false' },
      'dev.ringer.server': { 'android:name': 'dev.ringer.server', 'android:value': 'https://ringer.example.com' },
    });
    const expected = manifest();
    const application = expected.manifest.application?.[0];
    assert.ok(application !== undefined);
    application['meta-data'] = result.manifest.application?.[0]?.['meta-data'] ?? [];
    assert.deepEqual(result, expected);
    assert.deepEqual(input, manifest());
  });

  test('adds the call activity and the notification icon (a resource) when given; twice is once', () => {
    const once = applyAndroidManifest(manifest(), SANDBOX, PACKAGE);
    const items = metaData(once);
    assert.deepEqual(items['dev.ringer.call_activity'], {
      'android:name': 'dev.ringer.call_activity',
      'android:value': 'com.example.ringerdemo.CallActivity',
    });
    assert.deepEqual(items['dev.ringer.notification_icon'], {
      'android:name': 'dev.ringer.notification_icon',
      'android:resource': '@drawable/ic_stat_call',
    });
    assert.deepEqual(applyAndroidManifest(once, SANDBOX, PACKAGE), once);
    assert.equal(once.manifest.$['xmlns:tools'], undefined);
  });

  test('headlessTaskAfterAnswer writes the meta-data the native half reads, "true" or "false"; twice is once', () => {
    const on = resolveOptions({ server: 'https://ringer.example.com', headlessTaskAfterAnswer: true });
    const once = applyAndroidManifest(manifest(), on, PACKAGE);
    assert.deepEqual(metaData(once)['dev.ringer.headless_task_after_answer'], {
      'android:name': 'dev.ringer.headless_task_after_answer',
      'android:value': 'true',
    });
    assert.deepEqual(applyAndroidManifest(once, on, PACKAGE), once);
    const off = resolveOptions({ server: 'https://ringer.example.com', headlessTaskAfterAnswer: false });
    assert.equal(metaData(applyAndroidManifest(once, off, PACKAGE))['dev.ringer.headless_task_after_answer']?.['android:value'], 'false');
    assert.equal(metaData(applyAndroidManifest(manifest(), OPTIONS, PACKAGE))['dev.ringer.headless_task_after_answer'], undefined);
  });

  test('callUi writes the meta-data that chooses the native call UI; not given, none (the SDK\'s default)', () => {
    const core = resolveOptions({ server: 'https://ringer.example.com', callUi: 'core_telecom' });
    const once = applyAndroidManifest(manifest(), core, PACKAGE);
    assert.deepEqual(metaData(once)['dev.ringer.call_ui'], { 'android:name': 'dev.ringer.call_ui', 'android:value': 'core_telecom' });
    assert.deepEqual(applyAndroidManifest(once, core, PACKAGE), once);
    assert.equal(metaData(applyAndroidManifest(once, OPTIONS, PACKAGE))['dev.ringer.call_ui'], undefined);
  });

  test('a relative callActivity is expanded with android.package; a fully qualified one stays as given', () => {
    const named = (callActivity: string) =>
      metaData(applyAndroidManifest(manifest(), resolveOptions({ server: 'https://a.example', callActivity }), PACKAGE))[
        'dev.ringer.call_activity'
      ]?.['android:value'];
    assert.equal(named('.CallActivity'), 'com.example.ringerdemo.CallActivity');
    assert.equal(named('.ui.CallActivity'), 'com.example.ringerdemo.ui.CallActivity');
    assert.equal(named('CallActivity'), 'com.example.ringerdemo.CallActivity');
    assert.equal(named('com.other.calls.CallActivity'), 'com.other.calls.CallActivity');
    assert.equal(qualifiedClassName('com.other.CallActivity', undefined), 'com.other.CallActivity');
  });

  test('a relative callActivity without android.package stops prebuild with a message naming both', () => {
    for (const androidPackage of [undefined, '']) {
      assert.throws(() => applyAndroidManifest(manifest(), SANDBOX, androidPackage), {
        message: /callActivity "\.CallActivity" is relative to the app's package, but android\.package is not set/,
      });
    }
  });

  test('meta-data the plugin owns goes when its option is no longer given; the app\'s own meta-data stays', () => {
    const all = resolveOptions({
      server: 'https://ringer.example.com',
      callActivity: '.CallActivity',
      notificationIcon: 'ic_stat_call',
      headlessTaskAfterAnswer: true,
      callUi: 'core_telecom',
    });
    const before = applyAndroidManifest(manifest(), all, PACKAGE);
    const application = before.manifest.application?.[0];
    assert.ok(application !== undefined);
    application['meta-data'] = [
      ...(application['meta-data'] ?? []),
      { $: { 'android:name': 'dev.ringer.app_note', 'android:value': 'kept' } },
    ];
    const after = applyAndroidManifest(before, OPTIONS, PACKAGE);
    assert.deepEqual(Object.keys(metaData(after)), ['expo.modules.updates.ENABLED', 'dev.ringer.server', 'dev.ringer.app_note']);
    assert.deepEqual(applyAndroidManifest(after, OPTIONS, PACKAGE), after);
  });

  test('an application without android:name, without attributes or empty gets the meta-data, with no TypeError', () => {
    const shapes: unknown[] = [
      { $: { 'android:label': '@string/app_name' } },
      { activity: [{ $: { 'android:name': '.MainActivity' } }] },
      '',
      '\n    ',
      { $: {}, 'meta-data': ['', { $: { 'android:value': 'nameless' } }] },
    ];
    for (const application of shapes) {
      const input = { manifest: { $: { 'xmlns:android': 'x' }, application: [application] } } as unknown as Manifest;
      const result = applyAndroidManifest(input, SANDBOX, PACKAGE);
      const items = metaData(result);
      assert.equal(items['dev.ringer.server']?.['android:value'], 'https://ringer.example.com', JSON.stringify(application));
      assert.equal(items['dev.ringer.call_activity']?.['android:value'], 'com.example.ringerdemo.CallActivity');
      assert.deepEqual(applyAndroidManifest(result, SANDBOX, PACKAGE), result);
    }
    const nameless = { $: { 'android:label': 'Other' } } as unknown as AndroidConfig.Manifest.ManifestApplication;
    const two = manifest();
    two.manifest.application = [nameless, ...(two.manifest.application ?? [])];
    const result = applyAndroidManifest(two, OPTIONS, PACKAGE);
    assert.equal(result.manifest.application?.[0]?.['meta-data'], undefined);
  });

  test('picks the .MainApplication element, and refuses a manifest without any application', () => {
    const two = manifest();
    two.manifest.application = [{ $: { 'android:name': '.Other' } }, ...(two.manifest.application ?? [])];
    const result = applyAndroidManifest(two, OPTIONS, PACKAGE);
    assert.equal(result.manifest.application?.[0]?.['meta-data'], undefined);
    const main = result.manifest.application?.[1]?.['meta-data'] ?? [];
    assert.ok(main.some((item) => item.$['android:value'] === 'https://ringer.example.com'));
    assert.throws(() => applyAndroidManifest({ manifest: { $: { 'xmlns:android': 'x' } } }, OPTIONS, PACKAGE), {
      message: /application/,
    });
  });
});

describe('Android minSdk', () => {
  test('the floor is the Android half\'s own minSdk (react-native/android/build.gradle)', () => {
    const gradle = readFileSync(join(__dirname, '..', '..', 'android', 'build.gradle'), 'utf8');
    const floor = /\bringerMinSdk\s*=\s*(\d+)/.exec(gradle) ?? /\bminSdk(?:Version)?\s+(\d+)/.exec(gradle);
    assert.equal(Number(floor?.[1]), ANDROID_MIN_SDK);
  });

  test('raises android.minSdkVersion in gradle.properties to 26, keeping every other line; twice is once', () => {
    const input = gradleProperties();
    const edit = applyMinSdk(input);
    assert.equal(gradleProperty(edit.properties, 'android.minSdkVersion'), '26');
    assert.deepEqual(edit.properties.slice(0, -1), gradleProperties());
    assert.deepEqual(edit.properties[edit.properties.length - 1], { type: 'property', key: 'android.minSdkVersion', value: '26' });
    assert.equal(edit.raised, null);
    assert.deepEqual(input, gradleProperties());

    const again = applyMinSdk(edit.properties);
    assert.deepEqual(again.properties, edit.properties);
    assert.equal(again.raised, null);
  });

  test('raises a lower value in place, as written by expo-build-properties, and says which', () => {
    const input: PropertiesItem[] = [...gradleProperties(), { type: 'property', key: 'android.minSdkVersion', value: '24' }];
    const edit = applyMinSdk(input);
    assert.equal(edit.properties.length, input.length);
    assert.equal(gradleProperty(edit.properties, 'android.minSdkVersion'), '26');
    assert.equal(edit.raised, '24');
    assert.deepEqual(applyMinSdk(edit.properties).properties, edit.properties);
  });

  test('never lowers a higher minSdk, with or without spaces around the =', () => {
    for (const item of [
      { type: 'property', key: 'android.minSdkVersion', value: '26' },
      { type: 'property', key: 'android.minSdkVersion', value: '28' },
      { type: 'property', key: 'android.minSdkVersion ', value: ' 31' },
    ] as const) {
      const input: PropertiesItem[] = [...gradleProperties(), item];
      const edit = applyMinSdk(input);
      assert.deepEqual(edit.properties, input);
      assert.equal(edit.raised, null);
    }
  });

  test('reads the value Gradle reads: the last of a key given twice; a value that is no number is replaced', () => {
    const twice: PropertiesItem[] = [
      { type: 'property', key: 'android.minSdkVersion', value: '30' },
      ...gradleProperties(),
      { type: 'property', key: 'android.minSdkVersion', value: '23' },
    ];
    const edit = applyMinSdk(twice);
    assert.equal(gradleProperty(edit.properties, 'android.minSdkVersion'), '26');
    assert.deepEqual(edit.properties[0], twice[0]);
    assert.equal(edit.raised, '23');

    const garbled = applyMinSdk([{ type: 'property', key: 'android.minSdkVersion', value: 'latest' }]);
    assert.deepEqual(garbled.properties, [{ type: 'property', key: 'android.minSdkVersion', value: '26' }]);
    assert.equal(garbled.raised, 'latest');
  });
});

describe('Gradle', () => {
  test('adds the google-services classpath to the buildscript dependencies, once', () => {
    const once = addGoogleServicesClasspath(PROJECT_BUILD_GRADLE);
    assert.equal(once.status, 'added');
    assert.ok(
      once.contents.includes(
        "    dependencies {\n        classpath('com.google.gms:google-services:4.4.1')\n        classpath('com.android.tools.build:gradle')",
      ),
    );
    assert.equal(once.contents.replace("\n        classpath('com.google.gms:google-services:4.4.1')", ''), PROJECT_BUILD_GRADLE);
    const twice = addGoogleServicesClasspath(once.contents);
    assert.deepEqual(twice, { status: 'present', contents: once.contents });
  });

  test('leaves a classpath the project already names, at any version', () => {
    const own = PROJECT_BUILD_GRADLE.replace(
      "classpath('org.jetbrains.kotlin:kotlin-gradle-plugin')",
      "classpath('org.jetbrains.kotlin:kotlin-gradle-plugin')\n        classpath 'com.google.gms:google-services:4.3.15'",
    );
    assert.deepEqual(addGoogleServicesClasspath(own), { status: 'present', contents: own });
  });

  test('says so when there is no buildscript dependencies block', () => {
    const result = addGoogleServicesClasspath('plugins {\n    id("com.android.application") version "8.8.0" apply false\n}\n');
    assert.equal(result.status, 'unsupported');
  });

  test('applies the google-services plugin at the end of the app build.gradle, once', () => {
    const once = applyGoogleServicesPlugin(APP_BUILD_GRADLE);
    assert.deepEqual(once, {
      status: 'added',
      contents: `${APP_BUILD_GRADLE}apply plugin: 'com.google.gms.google-services'\n`,
    });
    assert.deepEqual(applyGoogleServicesPlugin(once.contents), { status: 'present', contents: once.contents });
  });

  test('recognises the plugin applied by Expo, or in a plugins block', () => {
    const byExpo = `${APP_BUILD_GRADLE}\napply plugin: 'com.google.gms.google-services'`;
    assert.equal(applyGoogleServicesPlugin(byExpo).status, 'present');
    const byId = `plugins {\n    id 'com.android.application'\n    id "com.google.gms.google-services"\n}\n`;
    assert.equal(applyGoogleServicesPlugin(byId).status, 'present');
    const byKotlinId = `plugins {\n    id("com.google.gms.google-services")\n}\n`;
    assert.equal(applyGoogleServicesPlugin(byKotlinId).status, 'present');
  });
});

describe('the plugin through @expo/config-plugins', () => {
  const files = (): { [mod: string]: unknown } => ({
    infoPlist: infoPlist(),
    entitlements: entitlements(),
    podfileProperties: podfileProperties(),
    xcodeproj: xcodeProject(),
    manifest: manifest(),
    gradleProperties: gradleProperties(),
    projectBuildGradle: { path: 'android/build.gradle', language: 'groovy', contents: PROJECT_BUILD_GRADLE },
    appBuildGradle: { path: 'android/app/build.gradle', language: 'groovy', contents: APP_BUILD_GRADLE },
  });

  test('registers one mod per native file and wires Firebase when android.googleServicesFile is set', async () => {
    fakeExpo.reset();
    const config = plugin(
      { name: 'demo', slug: 'demo', android: { package: PACKAGE, googleServicesFile: './google-services.json' } },
      { server: 'https://ringer.example.com', apnsEnvironment: 'sandbox', callActivity: '.CallActivity' },
    );
    assert.deepEqual(
      fakeExpo.registered.map((entry) => entry.mod),
      [
        'infoPlist',
        'entitlements',
        'podfileProperties',
        'xcodeproj',
        'manifest',
        'gradleProperties',
        'projectBuildGradle',
        'appBuildGradle',
      ],
    );
    const out = await fakeExpo.runMods(config, files());
    assert.deepEqual((out['infoPlist'] as InfoPlist).UIBackgroundModes, ['fetch', 'audio', 'remote-notification', 'voip']);
    assert.equal((out['entitlements'] as JSONObject)['aps-environment'], 'development');
    assert.equal((out['podfileProperties'] as Record<string, string>)['ios.deploymentTarget'], '16.0');
    assert.equal(deploymentTargets(out['xcodeproj'] as XcodeProject)['13B07F941A680F5B00A75B9A'], '16.0');
    assert.equal(metaData(out['manifest'] as Manifest)['dev.ringer.server']?.['android:value'], 'https://ringer.example.com');
    assert.equal(
      metaData(out['manifest'] as Manifest)['dev.ringer.call_activity']?.['android:value'],
      'com.example.ringerdemo.CallActivity',
    );
    assert.equal(gradleProperty(out['gradleProperties'] as PropertiesItem[], 'android.minSdkVersion'), '26');
    assert.ok((out['projectBuildGradle'] as { contents: string }).contents.includes('com.google.gms:google-services:4.4.1'));
    assert.ok((out['appBuildGradle'] as { contents: string }).contents.endsWith("apply plugin: 'com.google.gms.google-services'\n"));
    assert.deepEqual(fakeExpo.warnings, []);

    const again = await fakeExpo.runMods(config, out);
    assert.deepEqual(again, out);
  });

  test('without android.googleServicesFile it warns and leaves the Gradle files alone', () => {
    fakeExpo.reset();
    plugin({ name: 'demo', slug: 'demo' }, { server: 'https://ringer.example.com' });
    assert.deepEqual(
      fakeExpo.registered.map((entry) => entry.mod),
      ['infoPlist', 'entitlements', 'podfileProperties', 'xcodeproj', 'manifest', 'gradleProperties'],
    );
    assert.equal(fakeExpo.warnings.length, 1);
    assert.ok(fakeExpo.warnings[0]?.includes('android.googleServicesFile'));
  });

  test('a Kotlin DSL build file is left alone with a warning', async () => {
    fakeExpo.reset();
    const config = plugin(
      { name: 'demo', slug: 'demo', android: { googleServicesFile: './google-services.json' } },
      { server: 'https://ringer.example.com', apnsEnvironment: 'sandbox' },
    );
    const kts = { path: 'android/app/build.gradle.kts', language: 'kt', contents: 'plugins {}\n' };
    const out = await fakeExpo.runMods(config, { ...files(), appBuildGradle: kts });
    assert.deepEqual(out['appBuildGradle'], kts);
    assert.equal(fakeExpo.warnings.length, 1);
  });

  test('warns when it replaces another aps-environment, naming both values and that apnsEnvironment wins', async () => {
    fakeExpo.reset();
    const config = plugin({ name: 'demo', slug: 'demo', android: { package: PACKAGE } }, { server: 'https://ringer.example.com' });
    const out = await fakeExpo.runMods(config, files());
    assert.equal((out['entitlements'] as JSONObject)['aps-environment'], 'production');
    const ios = fakeExpo.warnings.filter((warning) => warning.startsWith('ios '));
    assert.equal(ios.length, 1);
    const warning = ios[0] ?? '';
    assert.ok(warning.startsWith('ios aps-environment: '), warning);
    assert.ok(warning.includes('"development"') && warning.includes('"production"'), warning);
    assert.ok(warning.includes('apnsEnvironment "production" wins'), warning);
    assert.ok(warning.includes('RingerAPNsEnvironment'), warning);
  });

  test('warns when it raises a minSdk the app set lower, naming the value; 26 or more is left without a word', async () => {
    fakeExpo.reset();
    const config = plugin({ name: 'demo', slug: 'demo', android: { package: PACKAGE } }, { server: 'https://ringer.example.com' });
    const lower: PropertiesItem[] = [...gradleProperties(), { type: 'property', key: 'android.minSdkVersion', value: '24' }];
    const out = await fakeExpo.runMods(config, { ...files(), gradleProperties: lower });
    assert.equal(gradleProperty(out['gradleProperties'] as PropertiesItem[], 'android.minSdkVersion'), '26');
    const minSdk = fakeExpo.warnings.filter((warning) => warning.startsWith('android android.minSdkVersion: '));
    assert.equal(minSdk.length, 1);
    assert.ok(minSdk[0]?.includes('from "24" to 26'), minSdk[0]);

    fakeExpo.warnings.length = 0;
    const higher: PropertiesItem[] = [...gradleProperties(), { type: 'property', key: 'android.minSdkVersion', value: '28' }];
    const kept = await fakeExpo.runMods(config, { ...files(), gradleProperties: higher });
    assert.deepEqual(kept['gradleProperties'], higher);
    assert.deepEqual(fakeExpo.warnings.filter((warning) => warning.includes('minSdkVersion')), []);
  });

  test('a relative callActivity with no android.package fails the manifest mod with a clear message', async () => {
    fakeExpo.reset();
    const config = plugin({ name: 'demo', slug: 'demo' }, { server: 'https://ringer.example.com', callActivity: '.CallActivity' });
    await assert.rejects(fakeExpo.runMods(config, files()), { message: /android\.package is not set/ });
  });

  test('app.plugin.js, where Expo looks, is the compiled plugin', () => {
    fakeExpo.reset();
    const load = Module.createRequire(join(__dirname, 'plugin.test.js'));
    const appPlugin = load('../../app.plugin.js') as typeof plugin;
    appPlugin({ name: 'demo', slug: 'demo' }, { server: 'https://ringer.example.com' });
    assert.deepEqual(
      fakeExpo.registered.map((entry) => entry.mod),
      ['infoPlist', 'entitlements', 'podfileProperties', 'xcodeproj', 'manifest', 'gradleProperties'],
    );
  });

  test('runs once however often it is listed, and stops prebuild on bad options', () => {
    fakeExpo.reset();
    const once = plugin({ name: 'demo', slug: 'demo' }, { server: 'https://ringer.example.com' });
    const count = fakeExpo.registered.length;
    plugin(once, { server: 'https://ringer.example.com' });
    assert.equal(fakeExpo.registered.length, count);
    assert.throws(() => plugin({ name: 'demo', slug: 'demo' }, { server: '' }), { message: /server/ });
  });
});

describe('installing from git', () => {
  const PACKAGE_DIR = join(__dirname, '..', '..');
  const packageJson = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
    scripts: { [name: string]: string | undefined };
    devDependencies?: { [name: string]: string | undefined };
  };

  test('prepare and build compile with tsc alone (no make, no apt-get), the same projects as the Makefile', () => {
    const makefile = readFileSync(join(PACKAGE_DIR, 'Makefile'), 'utf8');
    const projects = makefile
      .split('\n')
      .map((line) => /^\t\$\(TSC\) -p (\S+)$/.exec(line)?.[1])
      .filter((project): project is string => project !== undefined);
    assert.deepEqual(projects, ['tsconfig.json', 'plugin/tsconfig.json']);
    const expected = projects.map((project) => `tsc -p ${project}`).join(' && ');
    assert.equal(packageJson.scripts['prepare'], expected);
    assert.equal(packageJson.scripts['build'], expected);
  });

  test('the typescript devDependency admits 4.8, which the sources stay within, and current 5.x', () => {
    const range = packageJson.devDependencies?.['typescript'] ?? '';
    assert.equal(satisfies('4.8.4', range), true, range);
    assert.equal(satisfies('5.9.3', range), true, range);
    assert.equal(satisfies('4.7.4', range), false, range);
  });
});

/**
 * Whether `version` is in `range`, for ranges of comparators joined by spaces (`>=4.8 <6`), as npm's semver reads
 * them: every comparator must hold, and a missing minor or patch counts as 0.
 */
function satisfies(version: string, range: string): boolean {
  const parts = (text: string) => text.split('.').map(Number);
  const compare = (a: number[], b: number[]) => {
    for (let index = 0; index < 3; index += 1) {
      const difference = (a[index] ?? 0) - (b[index] ?? 0);
      if (difference !== 0) {
        return difference;
      }
    }
    return 0;
  };
  const comparators = range.trim().split(/\s+/);
  return comparators.every((comparator) => {
    const match = /^(>=|<=|>|<|=)?(\d+(?:\.\d+){0,2})$/.exec(comparator);
    if (match === null) {
      return false;
    }
    const order = compare(parts(version), parts(match[2] ?? ''));
    switch (match[1]) {
      case '>=':
        return order >= 0;
      case '<=':
        return order <= 0;
      case '>':
        return order > 0;
      case '<':
        return order < 0;
      default:
        return order === 0;
    }
  });
}
