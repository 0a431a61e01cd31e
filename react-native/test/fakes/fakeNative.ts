// A fake `Ringer` TurboModule for the JavaScript layer's tests: records every call, answers what the test
// set, rejects like React Native delivers a native `reject(code, message, userInfo)` (an Error with `code`
// and `userInfo`), and emits events to the handlers subscribed through `onEvent`.

import type { Spec } from '../../src/NativeRinger';

/** A rejection shaped as React Native hands it to JavaScript. */
export function nativeRejection(code: string, message: string, userInfo: object | null = null): Error {
  const error = new Error(message) as Error & { code: string; userInfo: object | null };
  error.code = code;
  error.userInfo = userInfo;
  return error;
}

export const ALICE_CALL = '6f1d1c3e-3c55-4b1f-9d0a-1f6a3b1f7a01';

export const STATE = {
  server: 'https://ringer.example.com',
  deviceId: 'device-1',
  platform: 'ios',
  userId: null,
  calls: [],
  readiness: [],
};

type Answer = unknown | (() => unknown);

export class FakeNative implements Spec {
  /** Every native call in order: method name and arguments. */
  readonly calls: { readonly method: string; readonly args: readonly unknown[] }[] = [];
  /** What each method answers (a value, or a function that returns or throws). */
  readonly answers: { [method: string]: Answer } = {
    configure: STATE,
    getInitialEvents: [],
    login: { userId: 'alice' },
    logout: undefined,
    startCall: { callId: ALICE_CALL, direction: 'outgoing', peer: { id: 'bob', name: 'Bob' }, hasVideo: false, state: 'ringing' },
    startGroupCall: {
      callId: ALICE_CALL,
      direction: 'outgoing',
      peer: { id: 'bob', name: 'Bob' },
      hasVideo: false,
      state: 'ringing',
      participants: [
        { user: { id: 'bob', name: 'Bob' }, state: 'ringing' },
        { user: { id: 'carol', name: null }, state: 'busy' },
      ],
    },
    ringMore: [{ user: { id: 'bob', name: 'Bob' }, state: 'accepted' }, { user: { id: 'dave', name: null }, state: 'ringing' }],
    answer: undefined,
    decline: undefined,
    hangUp: undefined,
    getCalls: [],
    getReadiness: [],
    openReadinessSettings: true,
    getCallHistory: [],
    setHeld: true,
    setMuted: true,
    playDtmf: true,
    getAudioRoutes: { current: null, outputs: [] },
    setAudioRoute: true,
    getRecentCalls: { calls: [], nextBefore: null },
  };
  private handlers = new Set<(payload: object) => void>();
  /** How many times `onEvent` subscribed. */
  subscribeCount = 0;

  /** How many native subscriptions are live now. */
  get liveSubscriptions(): number {
    return this.handlers.size;
  }

  /** Sends one event payload to every subscribed handler, as the native emitter would. */
  emit(payload: object): void {
    for (const handler of [...this.handlers]) {
      handler(payload);
    }
  }

  /** The calls of one method. */
  callsOf(method: string): (readonly unknown[])[] {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }

  private async respond(method: string, args: readonly unknown[]): Promise<never> {
    this.calls.push({ method, args });
    const answer = this.answers[method];
    return (typeof answer === 'function' ? (answer as () => unknown)() : answer) as never;
  }

  readonly onEvent = (handler: (payload: object) => void | Promise<void>): { remove(): void } => {
    const wrapped = (payload: object): void => {
      void handler(payload);
    };
    this.subscribeCount += 1;
    this.handlers.add(wrapped);
    return { remove: () => this.handlers.delete(wrapped) };
  };

  configure(options: { server: string | null }): Promise<object> {
    return this.respond('configure', [options]);
  }
  getInitialEvents(): Promise<object[]> {
    return this.respond('getInitialEvents', []);
  }
  login(userToken: string): Promise<object> {
    return this.respond('login', [userToken]);
  }
  logout(): Promise<void> {
    return this.respond('logout', []);
  }
  startCall(callee: string, video: boolean, callWaiting: string): Promise<object> {
    return this.respond('startCall', [callee, video, callWaiting]);
  }
  startGroupCall(callees: string[], video: boolean, answerPolicy: string, callWaiting: string): Promise<object> {
    return this.respond('startGroupCall', [callees, video, answerPolicy, callWaiting]);
  }

  getRecentCalls(limit: number, before: string | null): Promise<object> {
    return this.respond('getRecentCalls', [limit, before]);
  }
  ringMore(callId: string, callees: string[]): Promise<object[]> {
    return this.respond('ringMore', [callId, callees]);
  }
  answer(callId: string): Promise<void> {
    return this.respond('answer', [callId]);
  }
  decline(callId: string): Promise<void> {
    return this.respond('decline', [callId]);
  }
  hangUp(callId: string): Promise<void> {
    return this.respond('hangUp', [callId]);
  }
  getCalls(): Promise<object[]> {
    return this.respond('getCalls', []);
  }
  getReadiness(): Promise<string[]> {
    return this.respond('getReadiness', []);
  }
  openReadinessSettings(problem: string): Promise<boolean> {
    return this.respond('openReadinessSettings', [problem]);
  }
  setHeld(callId: string, held: boolean): Promise<boolean> {
    return this.respond('setHeld', [callId, held]);
  }

  setMuted(callId: string, muted: boolean): Promise<boolean> {
    return this.respond('setMuted', [callId, muted]);
  }

  playDtmf(callId: string, digits: string): Promise<boolean> {
    return this.respond('playDtmf', [callId, digits]);
  }

  getAudioRoutes(): Promise<object> {
    return this.respond('getAudioRoutes', []);
  }

  setAudioRoute(outputId: string): Promise<boolean> {
    return this.respond('setAudioRoute', [outputId]);
  }

  getCallHistory(limit: number): Promise<object[]> {
    return this.respond('getCallHistory', [limit]);
  }
}

/** Lets pending promise callbacks and microtasks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await Promise.resolve();
  }
}
