// The one global timer function the JavaScript layer uses (to rethrow a listener's error outside the dispatch
// loop). Mirrors `declare function setTimeout(...)` in react-native's src/types/globals.d.ts, which
// react-native@0.79's index.js.flow references; Node 20 has the same function.
declare function setTimeout(handler: (...args: unknown[]) => void, timeout?: number): unknown;
