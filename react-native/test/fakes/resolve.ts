// Points the package names the sources import at the fakes next to this file, for the tests that load the
// real entry points (src/index.ts, plugin/src/index.ts): `react-native` and `@expo/config-plugins` are not
// installed here. Import this module first; it wraps Node's CommonJS resolver once.

import Module = require('node:module');
import { join } from 'node:path';

const FAKES: { readonly [request: string]: string } = {
  'react-native': join(__dirname, 'reactNative.js'),
  '@expo/config-plugins': join(__dirname, 'expoConfigPlugins.js'),
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveFake(request: string, parent: unknown, ...rest: unknown[]): string {
  const fake = FAKES[request];
  return fake ?? resolve.call(Module, request, parent, ...rest);
};
