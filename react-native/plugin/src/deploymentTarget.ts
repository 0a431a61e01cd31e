// The iOS deployment target of the config plugin, as functions on the two files Expo keeps it in. The pod
// RingerReactNative needs iOS 16 (RingerKitApple's floor: Package.swift `.iOS(.v16)`), while an Expo SDK 53 app
// starts at 15.1: its Podfile says `platform :ios, podfile_properties['ios.deploymentTarget'] || '15.1'`, and its
// app target's IPHONEOS_DEPLOYMENT_TARGET is 15.1 too. expo-build-properties' `ios.deploymentTarget` sets both
// (packages/expo-build-properties/src/ios.ts: `ios.deploymentTarget` in Podfile.properties.json, and
// IPHONEOS_DEPLOYMENT_TARGET of the application targets' build configurations); these make the same two edits,
// and only ever raise: a target an app or another plugin set higher stays.

import type { XcodeProject } from '@expo/config-plugins';

/** The lowest iOS the package runs on: RingerKitApple's floor. */
export const IOS_DEPLOYMENT_TARGET = '16.0';

/** The Podfile.properties.json key Expo's Podfile reads the platform version from. */
export const PODFILE_DEPLOYMENT_TARGET = 'ios.deploymentTarget';

/** `16.0` as [16, 0]; null for what is not a dotted version (a build setting such as `$(inherited)`). */
function parseVersion(value: unknown): number[] | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+(?:\.\d+)*$/.test(text)) {
    return null;
  }
  return text.split('.').map(Number);
}

/** Whether `version` is a version below `floor`. */
function isBelow(version: number[], floor: number[]): boolean {
  for (let index = 0; index < Math.max(version.length, floor.length); index += 1) {
    const a = version[index] ?? 0;
    const b = floor[index] ?? 0;
    if (a !== b) {
      return a < b;
    }
  }
  return false;
}

const FLOOR = parseVersion(IOS_DEPLOYMENT_TARGET) ?? [];

/**
 * Sets `ios.deploymentTarget` to 16.0 unless it already names 16.0 or later; a value that is not a version is
 * replaced (the Podfile uses it as `platform :ios`). Returns a new object; the input is not changed.
 */
export function applyPodfileProperties(properties: Record<string, string>): Record<string, string> {
  const current = parseVersion(properties[PODFILE_DEPLOYMENT_TARGET]);
  if (current !== null && !isBelow(current, FLOOR)) {
    return { ...properties };
  }
  return { ...properties, [PODFILE_DEPLOYMENT_TARGET]: IOS_DEPLOYMENT_TARGET };
}

type Objects = { [id: string]: unknown };

/** The object of kind `isa` and id `id` in the project (each kind maps ids to objects, and `<id>_comment` to text). */
function object(project: XcodeProject, isa: string, id: unknown): { [key: string]: unknown } | null {
  const section: Objects | undefined = project.hash.project.objects[isa];
  const found = typeof id === 'string' && section !== undefined ? section[id] : undefined;
  return typeof found === 'object' && found !== null ? (found as { [key: string]: unknown }) : null;
}

/** An application target (`productType` "com.apple.product-type.application", quoted as the pbxproj has it). */
function isApplication(target: { [key: string]: unknown }): boolean {
  const type = target['productType'];
  return typeof type === 'string' && type.replace(/^"(.*)"$/, '$1') === 'com.apple.product-type.application';
}

/**
 * Raises IPHONEOS_DEPLOYMENT_TARGET to 16.0 in every build configuration of the project's application targets
 * that sets a lower version (extensions and build settings that are not versions are left alone). Changes the
 * project in place, as Expo's Xcode mods do, and returns it.
 */
export function raiseAppDeploymentTarget(project: XcodeProject): XcodeProject {
  const targets: Objects = project.hash.project.objects['PBXNativeTarget'] ?? {};
  for (const id of Object.keys(targets)) {
    const target = object(project, 'PBXNativeTarget', id);
    if (target === null || !isApplication(target)) {
      continue;
    }
    const list = object(project, 'XCConfigurationList', target['buildConfigurationList']);
    const configurations = Array.isArray(list?.['buildConfigurations']) ? (list?.['buildConfigurations'] as unknown[]) : [];
    for (const reference of configurations) {
      const configuration = object(project, 'XCBuildConfiguration', (reference as { value?: unknown } | null)?.value);
      const settings = configuration?.['buildSettings'] as { [key: string]: unknown } | undefined;
      const current = parseVersion(settings?.['IPHONEOS_DEPLOYMENT_TARGET']);
      if (settings !== undefined && current !== null && isBelow(current, FLOOR)) {
        settings['IPHONEOS_DEPLOYMENT_TARGET'] = IOS_DEPLOYMENT_TARGET;
      }
    }
  }
  return project;
}
