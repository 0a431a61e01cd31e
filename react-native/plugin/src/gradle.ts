// The Firebase wiring of the config plugin, as pure functions on Gradle (Groovy) text. The Android half
// receives calls through FCM, so the app needs the google-services Gradle plugin, which turns
// google-services.json into the resources Firebase initialises from.
//
// Expo's own prebuild already does this when the app sets `android.googleServicesFile`: its
// AndroidConfig.GoogleServices (packages/@expo/config-plugins/src/android/GoogleServices.ts) copies the file
// to android/app/google-services.json, adds the classpath `com.google.gms:google-services` (4.4.1) unless the
// project build.gradle names it, and appends `apply plugin: 'com.google.gms.google-services'` unless the app
// build.gradle has it. These functions make the same two edits under the same "only if not present" rule,
// and also recognise the `plugins { id ... }` spelling, so whichever runs first adds them and the other
// leaves them: never twice. The file itself is left to Expo.

/** The Maven coordinates of the Google services Gradle plugin, without version. */
export const GOOGLE_SERVICES_CLASSPATH = 'com.google.gms:google-services';

/** The version added when the project names none, the one Expo's GoogleServices.ts adds. */
export const GOOGLE_SERVICES_VERSION = '4.4.1';

/** The plugin id applied in the app module. */
export const GOOGLE_SERVICES_PLUGIN = 'com.google.gms.google-services';

/** What an edit did: added the line, found it already there, or found no place for it. */
export type GradleEdit =
  | { readonly status: 'added' | 'present'; readonly contents: string }
  | { readonly status: 'unsupported'; readonly contents: string; readonly reason: string };

/**
 * Adds `classpath('com.google.gms:google-services:4.4.1')` as the first dependency of the `buildscript`
 * block of the project build.gradle, unless the file already names the classpath anywhere.
 */
export function addGoogleServicesClasspath(projectBuildGradle: string): GradleEdit {
  if (projectBuildGradle.includes(GOOGLE_SERVICES_CLASSPATH)) {
    return { status: 'present', contents: projectBuildGradle };
  }
  const buildscript = /\bbuildscript\s*\{/.exec(projectBuildGradle);
  const rest = buildscript === null ? null : projectBuildGradle.slice(buildscript.index);
  const dependencies = rest === null ? null : /\bdependencies\s*\{/.exec(rest);
  if (buildscript === null || dependencies === null) {
    return {
      status: 'unsupported',
      contents: projectBuildGradle,
      reason: `no buildscript { dependencies { } } block to add ${GOOGLE_SERVICES_CLASSPATH} to`,
    };
  }
  const at = buildscript.index + dependencies.index + (dependencies[0] ?? '').length;
  const line = `\n        classpath('${GOOGLE_SERVICES_CLASSPATH}:${GOOGLE_SERVICES_VERSION}')`;
  return { status: 'added', contents: projectBuildGradle.slice(0, at) + line + projectBuildGradle.slice(at) };
}

const APPLIED = new RegExp(
  `(?:apply\\s+plugin\\s*:\\s*|\\bid\\s*\\(?\\s*)['"]${GOOGLE_SERVICES_PLUGIN.replace(/\./g, '\\.')}['"]`,
);

/**
 * Appends `apply plugin: 'com.google.gms.google-services'` to the app build.gradle, unless the plugin is
 * already applied (`apply plugin:` or `plugins { id ... }`).
 */
export function applyGoogleServicesPlugin(appBuildGradle: string): GradleEdit {
  if (APPLIED.test(appBuildGradle)) {
    return { status: 'present', contents: appBuildGradle };
  }
  const separator = appBuildGradle.endsWith('\n') ? '' : '\n';
  return { status: 'added', contents: `${appBuildGradle}${separator}apply plugin: '${GOOGLE_SERVICES_PLUGIN}'\n` };
}
