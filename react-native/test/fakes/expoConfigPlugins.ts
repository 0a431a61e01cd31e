// The fake `@expo/config-plugins` the plugin's entry point loads in the tests. Like the real one, each
// `withX` registers a mod for a native file and returns the config; `runMods` then plays the part of Expo's
// mod compiler, handing each registered mod its file in registration order. `createRunOncePlugin` keeps the
// real one's rule (a name in `_internal.pluginHistory` runs once).

type Config = { [key: string]: unknown };
type ModConfig = Config & { modResults: unknown };
type Action = (config: ModConfig) => ModConfig | Promise<ModConfig>;
type Plugin = (config: Config, props: unknown) => Config;

/** The mods registered so far, in order. */
export const registered: { readonly mod: string; readonly action: Action }[] = [];

/** The warnings the plugin gave, as `platform property: text`. */
export const warnings: string[] = [];

function withMod(mod: string): (config: Config, action: Action) => Config {
  return (config, action) => {
    registered.push({ mod, action });
    return config;
  };
}

export const withInfoPlist = withMod('infoPlist');
export const withEntitlementsPlist = withMod('entitlements');
export const withPodfileProperties = withMod('podfileProperties');
export const withXcodeProject = withMod('xcodeproj');
export const withAndroidManifest = withMod('manifest');
export const withProjectBuildGradle = withMod('projectBuildGradle');
export const withAppBuildGradle = withMod('appBuildGradle');
export const withGradleProperties = withMod('gradleProperties');

export const WarningAggregator = {
  addWarningAndroid(property: string, text: string): void {
    warnings.push(`android ${property}: ${text}`);
  },
  addWarningIOS(property: string, text: string): void {
    warnings.push(`ios ${property}: ${text}`);
  },
};

export function createRunOncePlugin(plugin: Plugin, name: string): Plugin {
  return (config, props) => {
    const internal = (config['_internal'] ?? {}) as { pluginHistory?: { [key: string]: unknown } };
    const history = internal.pluginHistory ?? {};
    if (history[name] !== undefined) {
      return config;
    }
    return plugin({ ...config, _internal: { ...internal, pluginHistory: { ...history, [name]: { name } } } }, props);
  };
}

/** Forgets the registered mods and warnings. */
export function reset(): void {
  registered.length = 0;
  warnings.length = 0;
}

/** Runs every registered mod over `files` (keyed by mod name) and answers the files as they end up. */
export async function runMods(config: Config, files: { [mod: string]: unknown }): Promise<{ [mod: string]: unknown }> {
  const results = { ...files };
  for (const { mod, action } of registered) {
    const out = await action({ ...config, modResults: results[mod], modRequest: { modName: mod }, modRawConfig: config });
    results[mod] = out.modResults;
  }
  return results;
}
