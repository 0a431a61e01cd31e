#!/usr/bin/env node
// Puts the Android SDK's sources into the package: android/build.gradle compiles RingerKit for Android from
// android/sdk when that folder is there (a published package), else from the repository's android/src/main.
// package.json runs it before `npm pack` / `npm publish` (prepack) and with --clean after (postpack), so a checkout
// never builds from a stale copy. Node only, no dependencies.
//
//   node scripts/android-sdk.js          copy ../android/src/main/{kotlin,java} to android/sdk/{kotlin,java}
//   node scripts/android-sdk.js --clean  remove android/sdk

'use strict';

const fs = require('fs');
const path = require('path');

/** The SDK's source folders under its src/main: Kotlin (core, OkHttp transports, platform) and Java (OkHttp glue). */
const SOURCE_FOLDERS = ['kotlin', 'java'];
const SOURCE_FILE = /\.(kt|java)$/;

/** The source files under `folder`, as paths relative to it with `/` separators, sorted. */
function sourceFiles(folder, relative = '') {
  const files = [];
  for (const entry of fs.readdirSync(path.join(folder, relative), { withFileTypes: true })) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      files.push(...sourceFiles(folder, child));
    } else if (entry.isFile() && SOURCE_FILE.test(entry.name)) {
      files.push(child);
    }
  }
  return files.sort();
}

/** Where the copy goes: `<packageDir>/android/sdk`. */
function sdkFolder(packageDir) {
  return path.join(packageDir, 'android', 'sdk');
}

/**
 * Replaces `<packageDir>/android/sdk` with the Kotlin and Java sources of `sdkMain` (by default the repository's
 * android/src/main beside the package): nothing of the SDK's tests, the laboratory or its manifest (the package's
 * own manifest declares the components).
 * @returns the files copied, relative to android/sdk.
 * @throws Error when `sdkMain` has no Kotlin sources.
 */
function copyAndroidSdk(packageDir, sdkMain = path.join(packageDir, '..', 'android', 'src', 'main')) {
  if (!fs.existsSync(path.join(sdkMain, 'kotlin'))) {
    throw new Error(`no Android SDK sources at ${path.join(sdkMain, 'kotlin')} (run this in the Ringer repository)`);
  }
  const target = sdkFolder(packageDir);
  fs.rmSync(target, { recursive: true, force: true });
  const copied = [];
  for (const folder of SOURCE_FOLDERS) {
    const from = path.join(sdkMain, folder);
    if (!fs.existsSync(from)) {
      continue;
    }
    for (const file of sourceFiles(from)) {
      const to = path.join(target, folder, ...file.split('/'));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(path.join(from, ...file.split('/')), to);
      copied.push(`${folder}/${file}`);
    }
  }
  return copied;
}

/** Removes `<packageDir>/android/sdk`, if there is one. */
function removeAndroidSdk(packageDir) {
  fs.rmSync(sdkFolder(packageDir), { recursive: true, force: true });
}

module.exports = { copyAndroidSdk, removeAndroidSdk, sourceFiles };

if (require.main === module) {
  const packageDir = path.resolve(__dirname, '..');
  try {
    if (process.argv.includes('--clean')) {
      removeAndroidSdk(packageDir);
    } else {
      const copied = copyAndroidSdk(packageDir);
      console.log(`@ringer/react-native: android/sdk has the Android SDK's ${copied.length} source files`);
    }
  } catch (error) {
    console.error(`@ringer/react-native: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
