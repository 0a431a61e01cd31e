// The fake `react-native` module src/NativeRinger.ts and src/index.ts load in the tests: a TurboModuleRegistry
// whose `getEnforcing` answers one FakeNative and records the module names asked for, and an AppRegistry that
// keeps the Headless JS tasks registered.

import { FakeNative } from './fakeNative';

/** The native module every `getEnforcing` answers. */
export const native = new FakeNative();

/** The module names asked for, in order. */
export const requested: string[] = [];

export const TurboModuleRegistry = {
  getEnforcing<T>(name: string): T {
    requested.push(name);
    return native as unknown as T;
  },
};

/** The Headless JS tasks registered, by key, as React Native's AppRegistry keeps them. */
export const headlessTasks = new Map<string, () => (taskData: unknown) => Promise<void>>();

/** Like React Native's (Libraries/ReactNative/AppRegistry.js), its method reads `this`: a detached call throws. */
export const AppRegistry = {
  tasks: headlessTasks,
  registerHeadlessTask(taskKey: string, taskProvider: () => (taskData: unknown) => Promise<void>): void {
    this.tasks.set(taskKey, taskProvider);
  },
};
