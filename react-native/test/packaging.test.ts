// What `npm pack` / `npm publish` put in the package: package.json `files`, read as npm reads it, over the files
// of this checkout (plus the Android SDK's copy the prepack script makes); and that prepack script itself, run on
// a temporary copy of the repository's layout.
//
// npm's rules for `files` (npm-packlist, lib/index.js; npm's Files & Ignores notes): each entry is a glob
// (matched ignoring case, dot files included) relative to the package root; an entry that matches a folder
// takes everything under it; entries apply in order and an entry starting with `!` takes back what earlier ones
// matched. The root .gitignore does not override `files` (npm's package.json docs), which is why build/,
// plugin/build/ and android/sdk/ ship although git ignores them.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import Module = require('node:module');
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';

const PACKAGE = join(__dirname, '..', '..');
const SCRIPT = join(PACKAGE, 'scripts', 'android-sdk.js');

interface AndroidSdkScript {
  copyAndroidSdk(packageDir: string, sdkMain?: string): string[];
  sourceFiles(folder: string): string[];
}

/** A glob of `files` as a regular expression over a relative path: `**` any folders, `*` and `?` within one name. */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] ?? '';
    if (glob.startsWith('**/', index)) {
      source += '(?:.*/)?';
      index += 2;
    } else if (glob.startsWith('**', index)) {
      source += '.*';
      index += 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 'i');
}

/** Whether npm packs `path` under the `files` entries: the last entry matching it, or a folder of it, decides. */
function packs(files: readonly string[], path: string): boolean {
  const parts = path.split('/');
  const selves = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  let packed = false;
  for (const entry of files) {
    const negate = entry.length - entry.replace(/^!+/, '').length;
    const pattern = globToRegExp(entry.slice(negate).replace(/^\.?\/+/, '').replace(/\/+$/, ''));
    if (selves.some((self) => pattern.test(self))) {
      packed = negate % 2 === 0;
    }
  }
  return packed;
}

/** Every file under `folder`, relative to it with `/`, skipping node_modules. */
function walk(folder: string, relative = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(folder, relative), { withFileTypes: true })) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory() && entry.name !== 'node_modules') {
      found.push(...walk(folder, child));
    } else if (entry.isFile()) {
      found.push(child);
    }
  }
  return found;
}

/** What the package must carry: the JavaScript layer and plugin, the Expo and pod manifests, the native sources. */
const SHIPPED: readonly RegExp[] = [
  /^src\//,
  /^build\/src\//,
  /^plugin\/build\//,
  /^app\.plugin\.js$/,
  /^expo-module\.config\.json$/,
  /^RingerReactNative\.podspec$/,
  /^ios\/(?:[^/]+\/)*[^/]+\.(?:swift|h|m|mm|podspec)$/,
  /^android\/build\.gradle$/,
  /^android\/src\/main\//,
  /^android\/sdk\/(?:kotlin|java)\//,
];

/** What a package.json always carries, whatever `files` says. */
const ALWAYS = /^(?:package\.json|(?:readme|license|licence|copying)(?:\..*)?)$/i;

describe('package.json files', () => {
  const files = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { files: string[] }).files;
  const sdkCopy = ['android/sdk/kotlin/dev/ringer/kit/CallCoordinator.kt', 'android/sdk/java/dev/ringer/kit/okhttp/OkHttpCalls.java'];
  const paths = [...walk(PACKAGE).filter((path) => !ALWAYS.test(path)), ...sdkCopy];

  test('the matcher reads globs and folders as npm does', () => {
    assert.equal(packs(['src'], 'src/a/b.ts'), true);
    assert.equal(packs(['ios/**/*.swift'], 'ios/A.swift'), true);
    assert.equal(packs(['ios/**/*.swift'], 'ios/Expo/B.swift'), true);
    assert.equal(packs(['ios/*.swift'], 'ios/Expo/B.swift'), false);
    assert.equal(packs(['android', '!android/mirror'], 'android/mirror/x/Y.java'), false);
    assert.equal(packs(['android', '!**/Makefile'], 'android/Makefile'), false);
    assert.equal(packs(['android/src/main'], 'android/src/mainly.txt'), false);
  });

  test('ships exactly the sources, builds and manifests an app needs', () => {
    for (const path of paths) {
      assert.equal(packs(files, path), SHIPPED.some((shipped) => shipped.test(path)), path);
    }
  });

  test('every kind of shipped file is there, and mirrors, tests and Makefiles are not', () => {
    const packed = paths.filter((path) => packs(files, path));
    for (const needed of [
      'src/index.ts',
      'build/src/index.js',
      'build/src/index.d.ts',
      'plugin/build/index.js',
      'app.plugin.js',
      'expo-module.config.json',
      'RingerReactNative.podspec',
      'ios/Expo/RingerReactNativeExpo.podspec',
      'ios/Expo/RingerAppDelegateSubscriber.swift',
      'ios/RingerReactNative.swift',
      'ios/RingerModule.mm',
      'ios/RingerModule.h',
      'android/build.gradle',
      'android/src/main/AndroidManifest.xml',
      'android/src/main/kotlin/dev/ringer/reactnative/RingerModule.kt',
      ...sdkCopy,
    ]) {
      assert.ok(packed.includes(needed), `${needed} is not packed`);
    }
    const unwanted = paths.filter(
      (path) =>
        /^android\/mirror\//.test(path) ||
        /^android\/src\/test\//.test(path) ||
        /(?:^|\/)Makefile$/.test(path) ||
        /^(?:test|types|scripts|build\/test|plugin\/src)\//.test(path),
    );
    assert.ok(unwanted.some((path) => path.startsWith('android/mirror/')));
    assert.ok(unwanted.some((path) => path.startsWith('android/src/test/')));
    assert.ok(unwanted.includes('Makefile'));
    assert.deepEqual(unwanted.filter((path) => packs(files, path)), []);
  });
});

describe('prepack: scripts/android-sdk.js', () => {
  /** Writes `text` to `root/relative`, making its folders. */
  function put(root: string, relative: string, text: string): void {
    const path = join(root, ...relative.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }

  /** A temporary repository: the SDK's main sources and what must not be copied, and the package with its script. */
  function repository(): string {
    const root = mkdtempSync(join(tmpdir(), 'ringer-rn-pack-'));
    put(root, 'android/src/main/kotlin/dev/ringer/kit/CallCoordinator.kt', 'core');
    put(root, 'android/src/main/kotlin/dev/ringer/kit/okhttp/OkHttpTransport.kt', 'okhttp');
    put(root, 'android/src/main/kotlin/dev/ringer/android/RingerPhone.kt', 'platform');
    put(root, 'android/src/main/java/dev/ringer/kit/okhttp/OkHttpCalls.java', 'java');
    put(root, 'android/src/main/AndroidManifest.xml', '<manifest/>');
    put(root, 'android/src/main/kotlin/dev/ringer/kit/NOTES.md', 'not a source');
    put(root, 'android/src/test/kotlin/dev/ringer/kit/CallCoordinatorTest.kt', 'test');
    put(root, 'android/lab/kotlin/dev/ringer/lab/PhoneHost.kt', 'lab');
    put(root, 'android/mirror/java/android/content/Context.java', 'mirror');
    put(root, 'react-native/android/sdk/kotlin/Stale.kt', 'stale');
    mkdirSync(join(root, 'react-native', 'scripts'), { recursive: true });
    copyFileSync(SCRIPT, join(root, 'react-native', 'scripts', 'android-sdk.js'));
    return root;
  }

  function run(root: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
    return spawnSync(process.execPath, [join(root, 'react-native', 'scripts', 'android-sdk.js'), ...args], {
      encoding: 'utf8',
    });
  }

  test('copies the SDK\'s Kotlin and Java main sources, and nothing else, into android/sdk', () => {
    const root = repository();
    const result = run(root);
    assert.equal(result.status, 0, result.stderr);
    const sdk = join(root, 'react-native', 'android', 'sdk');
    assert.deepEqual(walk(sdk).sort(), [
      'java/dev/ringer/kit/okhttp/OkHttpCalls.java',
      'kotlin/dev/ringer/android/RingerPhone.kt',
      'kotlin/dev/ringer/kit/CallCoordinator.kt',
      'kotlin/dev/ringer/kit/okhttp/OkHttpTransport.kt',
    ]);
    assert.equal(readFileSync(join(sdk, 'kotlin', 'dev', 'ringer', 'android', 'RingerPhone.kt'), 'utf8'), 'platform');
    assert.equal(run(root).status, 0, 'a second run replaces the copy');
    assert.equal(walk(sdk).length, 4);

    assert.equal(run(root, '--clean').status, 0);
    assert.equal(existsSync(sdk), false);
    rmSync(root, { recursive: true, force: true });
  });

  test('fails, naming the folder, where there is no SDK beside the package', () => {
    const root = mkdtempSync(join(tmpdir(), 'ringer-rn-pack-'));
    mkdirSync(join(root, 'react-native', 'scripts'), { recursive: true });
    copyFileSync(SCRIPT, join(root, 'react-native', 'scripts', 'android-sdk.js'));
    const result = run(root);
    assert.equal(result.status, 1);
    assert.ok(result.stderr.includes(join(root, 'android', 'src', 'main', 'kotlin')), result.stderr);
    rmSync(root, { recursive: true, force: true });
  });

  test('from this repository it takes every source android/Makefile compiles as core, okhttp and platform', () => {
    const load = Module.createRequire(join(__dirname, 'packaging.test.js'));
    const script = load(SCRIPT) as AndroidSdkScript;
    const target = mkdtempSync(join(tmpdir(), 'ringer-rn-pack-'));
    const main = join(PACKAGE, '..', 'android', 'src', 'main');
    const copied = script.copyAndroidSdk(target, main);
    const expected = [
      ...script.sourceFiles(join(main, 'kotlin')).map((file) => `kotlin/${file}`),
      ...script.sourceFiles(join(main, 'java')).map((file) => `java/${file}`),
    ];
    assert.deepEqual(copied, expected);
    assert.ok(copied.some((file) => file.startsWith('kotlin/dev/ringer/kit/okhttp/')));
    assert.ok(copied.some((file) => file.startsWith('kotlin/dev/ringer/android/')));
    assert.ok(copied.some((file) => file.startsWith('java/dev/ringer/kit/okhttp/')));
    assert.deepEqual(walk(join(target, 'android', 'sdk')).sort(), [...copied].sort());
    rmSync(target, { recursive: true, force: true });
  });
});

describe('codegenConfig', () => {
  const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
    codegenConfig?: { name?: string; type?: string; ios?: { modulesProvider?: { [module: string]: string } } };
  };

  test('iOS codegen registers the class RingerModule as the provider of the module Ringer', () => {
    // React Native 0.79's generate-artifacts-executor.js (generateRCTModuleProviders) writes each
    // `codegenConfig.ios.modulesProvider` entry into RCTModuleProviders.mm, which the app's
    // RCTAppDependencyProvider hands to the TurboModule manager (`getModuleProvider:`); 0.78 had no such key.
    assert.equal(pkg.codegenConfig?.name, 'RingerSpec');
    assert.equal(pkg.codegenConfig?.type, 'modules');
    assert.deepEqual(pkg.codegenConfig?.ios?.modulesProvider, { Ringer: 'RingerModule' });
    // The key is the name JavaScript asks for, the value an Objective-C class that is a TurboModule.
    const spec = readFileSync(join(PACKAGE, 'src', 'NativeRinger.ts'), 'utf8');
    assert.ok(spec.includes("TurboModuleRegistry.getEnforcing<Spec>('Ringer')"));
    const header = readFileSync(join(PACKAGE, 'ios', 'RingerModule.h'), 'utf8');
    assert.ok(/@interface RingerModule : NativeRingerSpecBase <NativeRingerSpec\b/.test(header));
    const objc = readFileSync(join(PACKAGE, 'ios', 'RingerModule.mm'), 'utf8');
    assert.ok(/RCT_EXPORT_MODULE\(Ringer\)/.test(objc));
    assert.ok(/- \(std::shared_ptr<facebook::react::TurboModule>\)getTurboModule:/.test(objc));
  });
});
