// The fake `react-native` module src/NativeRinger.ts loads in the tests: a TurboModuleRegistry whose
// `getEnforcing` answers one FakeNative and records the module names asked for.

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
