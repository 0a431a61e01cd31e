// Hand-written declarations of the few Node 20 APIs the tests use (there is no @types/node on this machine).
// Shapes follow Node 20's documentation of node:test, node:assert/strict, node:fs, node:os, node:child_process,
// node:path and node:module.

declare module 'node:test' {
  type TestFn = () => void | Promise<void>;
  export function test(name: string, fn: TestFn): Promise<void>;
  export function describe(name: string, fn: () => void): void;
}

declare module 'node:assert/strict' {
  export function ok(value: unknown, message?: string): asserts value;
  export function equal(actual: unknown, expected: unknown, message?: string): void;
  export function notEqual(actual: unknown, expected: unknown, message?: string): void;
  export function deepEqual(actual: unknown, expected: unknown, message?: string): void;
  export function throws(fn: () => unknown, expected?: object, message?: string): void;
  export function rejects(promise: Promise<unknown> | (() => Promise<unknown>), expected?: object, message?: string): Promise<void>;
}

declare module 'node:fs' {
  export interface Dirent {
    readonly name: string;
    isDirectory(): boolean;
    isFile(): boolean;
  }
  export function readFileSync(path: string, encoding: 'utf8'): string;
  export function readdirSync(path: string, options: { withFileTypes: true }): Dirent[];
  export function existsSync(path: string): boolean;
  export function mkdtempSync(prefix: string): string;
  export function mkdirSync(path: string, options: { recursive: true }): string | undefined;
  export function writeFileSync(path: string, data: string): void;
  export function copyFileSync(from: string, to: string): void;
  export function rmSync(path: string, options: { recursive: true; force: true }): void;
}

declare module 'node:os' {
  export function tmpdir(): string;
}

declare module 'node:child_process' {
  /** Node's `spawnSync` with `encoding: 'utf8'`: the exit status and the output as text. */
  export function spawnSync(
    command: string,
    args: readonly string[],
    options: { encoding: 'utf8' },
  ): { status: number | null; stdout: string; stderr: string };
}

declare module 'node:path' {
  export function join(...parts: string[]): string;
  export function dirname(path: string): string;
}

declare const process: { readonly execPath: string };

declare module 'node:module' {
  /** `Module._resolveFilename`, the CommonJS resolver the tests wrap to point package names at fakes. */
  const Module: {
    _resolveFilename(request: string, parent: unknown, ...rest: unknown[]): string;
    createRequire(filename: string): (id: string) => unknown;
  };
  export = Module;
}

declare const __dirname: string;
