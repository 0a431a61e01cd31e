// Hand-written declarations of the React Native APIs @ringer/react-native uses, and nothing else, so that
// `tsc --strict` can check the package on a machine without React Native. An app compiles against React
// Native's own types instead; these exist for this repository's build only (they are not shipped).
//
// Each declaration names the file it mirrors. The minimum React Native version is 0.79 (package.json); the
// declarations were read against react-native@0.79.0 where a published copy was available (unpkg) and
// against facebook/react-native sources otherwise, at the commit named.

declare module 'react-native/Libraries/vendor/emitter/EventEmitter' {
  /**
   * Mirrors `export interface EventSubscription { remove(): void }` in
   * packages/react-native/Libraries/vendor/emitter/EventEmitter.js (react-native@0.71 through 0.83 keep the
   * same one-method interface; 0.79.0's Libraries/Types/CodegenTypes.js imports it from there).
   */
  export interface EventSubscription {
    remove(): void;
  }
}

declare module 'react-native/Libraries/Types/CodegenTypes' {
  import type { EventSubscription } from 'react-native/Libraries/vendor/emitter/EventEmitter';

  /**
   * Mirrors `export type UnsafeObject = Object` in packages/react-native/Libraries/Types/CodegenTypes.js
   * (react-native@0.79.0) and `UnsafeObject = object` in types/modules/Codegen.d.ts. Codegen maps it to
   * `GenericObjectTypeAnnotation`: ReadableMap on Android, NSDictionary on iOS.
   */
  export type UnsafeObject = object;

  /**
   * Mirrors `export type EventEmitter<T> = (handler: (T) => void | Promise<void>) => EventSubscription` in
   * packages/react-native/Libraries/Types/CodegenTypes.js (react-native@0.79.0; the same spelling in
   * Libraries/Types/CodegenTypesNamespace.d.ts of 0.80+). A module spec property typed `EventEmitter<T>` is
   * recognised by codegen by its bare name (`parser.getTypeAnnotationName(...) === 'EventEmitter'` in
   * packages/react-native-codegen/src/parsers/parsers-commons.js, buildModuleSchema), which is why the spec
   * imports it by that name from this deep path: 0.79's TypeScript parser reads `typeName.name` and so does not
   * see `CodegenTypes.EventEmitter` (namespaced names came with facebook/react-native#49950, in 0.80).
   */
  export type EventEmitter<T> = (handler: (arg: T) => void | Promise<void>) => EventSubscription;
}

declare module 'react-native' {
  /**
   * Mirrors packages/react-native/Libraries/TurboModule/RCTExport.js (facebook/react-native@3f1441f):
   * `interface TurboModule extends DEPRECATED_RCTExport<void>`, whose only member is the optional
   * `getConstants`. The codegen parser requires the spec interface to extend `TurboModule`.
   */
  export interface TurboModule {
    readonly getConstants?: () => object;
  }

  /**
   * Mirrors packages/react-native/Libraries/TurboModule/TurboModuleRegistry.d.ts
   * (facebook/react-native@863c585): `getEnforcing<T extends TurboModule>(name: string): T` throws when no
   * native module of that name is registered (new architecture: the TurboModule manager has none).
   */
  export namespace TurboModuleRegistry {
    function getEnforcing<T extends TurboModule>(name: string): T;
  }

  /**
   * Mirrors `registerHeadlessTask` of `export namespace AppRegistry` in
   * packages/react-native/Libraries/ReactNative/AppRegistry.d.ts (tag v0.79.0, read with git show; exported from
   * the package's root through types/index.d.ts `export * from '../Libraries/ReactNative/AppRegistry'`), with its
   * `type Task = (taskData: any) => Promise<void>` and `type TaskProvider = () => Task`. Android's
   * HeadlessJsTaskService runs the task registered under `taskKey` with the data native code gave it.
   */
  export namespace AppRegistry {
    function registerHeadlessTask(taskKey: string, taskProvider: () => (taskData: any) => Promise<void>): void;
  }
}
