// The JavaScript API over the native module: argument checks, the configure gate, error mapping and result
// narrowing. `createRinger` takes the native module as a function so that tests can hand it a fake; the app
// gets the one instance src/index.ts makes over the real TurboModule.

import { RingerError, invalidArgument, toRingerError } from './errors';
import { EventHub } from './events';
import type { ListenerErrorHandler } from './events';
import type { Spec } from './NativeRinger';
import {
  narrowAudioRoutes,
  narrowBoolean,
  narrowCalls,
  narrowEventList,
  narrowHistory,
  narrowLoginResult,
  narrowNativeState,
  narrowOpened,
  narrowParticipants,
  narrowPlacedCall,
  narrowProblems,
  narrowRecentCalls,
} from './narrow';
import type {
  AnswerPolicy,
  AudioRoutes,
  Call,
  ConfigureOptions,
  Diagnostics,
  HistoryEntry,
  LoginResult,
  NativeState,
  Participant,
  PlacedCall,
  RecentCallsOptions,
  RecentCallsPage,
  RingerEvent,
  RingerEventOf,
  RingerEventType,
  RingerListener,
  StartCallOptions,
  StartGroupCallOptions,
  Subscription,
} from './types';
import {
  booleanArgument,
  booleanOption,
  callIdArgument,
  dtmfArgument,
  historyLimitArgument,
  nonEmptyStringArgument,
  optionsArgument,
  serverArgument,
} from './validate';

const EVENT_TYPES: readonly RingerEventType[] = [
  'incoming',
  'outgoing',
  'ringing',
  'accepted',
  'ended',
  'readinessChanged',
  'connectionChanged',
  'requestFailed',
  'eventsDropped',
  'participants',
];

/**
 * The Ringer API. Every method returns a promise that rejects only with `RingerError`; every method but
 * `configure` and `addListener` rejects `not_configured` until `configure` has resolved once (a call made
 * while `configure` is under way waits for it).
 */
export interface RingerClient {
  /**
   * Connects JavaScript to the native half, which has been running since launch: stores `server` when given,
   * fetches the events from before JavaScript attached (handed over once: see `getInitialEvents`), and
   * answers the native state. Call it once at start-up; calling it again only changes the server.
   * @throws RingerError `invalid_argument` (server not an http(s) URL), `not_configured` (no server known at all).
   */
  configure(options?: ConfigureOptions): Promise<NativeState>;

  /**
   * The events from before JavaScript attached (a call that rang, was answered or ended while the app was not
   * running), in order, at most once: they go either to the first listeners added after `configure`, or to
   * the first call of this method if it comes first. Later calls, and calls after the listeners got them,
   * answer `[]`. An `eventsDropped` event comes first when the native buffer overflowed.
   */
  getInitialEvents(): Promise<RingerEvent[]>;

  /**
   * Logs in with the app's user token (a JWT from the app's backend). The token is kept natively so calls
   * ring and answers work before JavaScript starts; the same user again just replaces it (a refresh).
   * @throws RingerError `invalid_argument` (empty, or no readable subject), `other_user_logged_in` (log out first).
   */
  login(userToken: string): Promise<LoginResult>;

  /**
   * Logs out: unregisters this device's push tokens and deletes the stored token.
   * @throws RingerError `call_in_progress` while any call rings or is up (hang up first).
   */
  logout(): Promise<void>;

  /**
   * Calls the user `callee` (a server user id). Resolves with the server's call; when its `state` is
   * `"ringing"` an `outgoing` event follows, when it is final (`"busy"`, `"failed"`) nothing rings.
   * @throws RingerError `invalid_argument`, `not_logged_in`, `server_refused`, `network`, `call_ui_refused`.
   */
  startCall(callee: string, options?: StartCallOptions): Promise<PlacedCall>;

  /**
   * Rings several users in one call (docs/react-native.md, "Group calls"); resolves with the server's call, its
   * `peer` the first callee and `participants` everyone rung. When its `state` is `"ringing"` an `outgoing` event
   * follows, then a `participants` event at each change.
   * @throws RingerError `invalid_argument` (an empty list, a repeated or empty id, an unknown `answerPolicy`),
   *   `not_logged_in`, `server_refused` (`problemType` `duplicate-callee`, `too-many-callees`, `user-not-found`),
   *   `network`, `call_ui_refused`.
   */
  startGroupCall(callees: readonly string[], options?: StartGroupCallOptions): Promise<PlacedCall>;

  /**
   * Rings more users into a call this phone placed or is in (ringing or up); resolves with the call's participants.
   * Someone ringing or in the call already is left alone.
   * @throws RingerError `invalid_argument`, `unknown_call`, `server_refused` (`callee-already-rung`: that user's
   *   part of this call ended, place a new call; `call-state-conflict` once the call is over), `network`.
   */
  ringMore(callId: string, callees: readonly string[]): Promise<Participant[]>;

  /**
   * Answers a ringing incoming call through CallKit / Telecom, as the system UI would; `accepted` follows
   * when media can start.
   * @throws RingerError `invalid_argument` (not a UUID), `unknown_call`, `wrong_state`.
   */
  answer(callId: string): Promise<void>;

  /**
   * Declines an incoming call that still rings.
   * @throws RingerError `invalid_argument`, `unknown_call`, `wrong_state` (already answered: use `hangUp`).
   */
  decline(callId: string): Promise<void>;

  /**
   * Ends any call this phone has: cancels an outgoing call still ringing, declines a ringing incoming call,
   * ends a call that is up.
   * @throws RingerError `invalid_argument`, `unknown_call`.
   */
  hangUp(callId: string): Promise<void>;

  /** The calls up on this phone now (not ended), read from the native call machine. */
  getCalls(): Promise<Call[]>;

  /**
   * Runs the readiness pre-flight again and answers the names of what would stop a call from ringing
   * (Android: `notifications_disabled`, `full_screen_intent_denied`, `battery_optimized`, ...).
   */
  getReadiness(): Promise<string[]>;

  /**
   * Opens the system settings page that fixes `problem` (a name `getReadiness` answered); `false` when the
   * platform has no such page.
   * @throws RingerError `invalid_argument` (empty).
   */
  openReadinessSettings(problem: string): Promise<boolean>;

  /**
   * Holds (`true`) or resumes an answered call through CallKit / Telecom, so the system's screen agrees; `held`
   * follows once the system did it. Resuming holds this phone's other calls first (one call has the audio).
   * @returns `false` when the call cannot take it (not answered yet): nothing was asked.
   * @throws RingerError `invalid_argument`, `unknown_call`.
   */
  setHeld(callId: string, held: boolean): Promise<boolean>;

  /**
   * Mutes or unmutes a call's microphone through CallKit's Mute (on Android at once: a self-managed call's microphone
   * is the app's); `muted` follows.
   * @returns `false` when the call is over.
   * @throws RingerError `invalid_argument`, `unknown_call`.
   */
  setMuted(callId: string, muted: boolean): Promise<boolean>;

  /**
   * Plays keypad tones from the app's own keypad, through CallKit's `CXPlayDTMFCallAction` on iOS; `dtmf` follows,
   * and the app's media sends them then.
   * @returns `false` when the call does not have the audio (not answered, held).
   * @throws RingerError `invalid_argument` (not 1 to 64 of `0`-`9`, `*`, `#`, `A`-`D`), `unknown_call`.
   */
  playDtmf(callId: string, digits: string): Promise<boolean>;

  /** Where the calls' audio goes now and the outputs the system lists (`audioRouteChanged` tells each change). */
  getAudioRoutes(): Promise<AudioRoutes>;

  /**
   * Sends the calls' audio to an output `getAudioRoutes` listed (its `id`), through the system, so its own picker
   * agrees; `audioRouteChanged` follows once the system moved it. Chosen before a call's audio starts, it is applied
   * when it does, and again after a hold, until the last call ends.
   * @returns `false` when the system lists no such output.
   * @throws RingerError `invalid_argument` (empty id).
   */
  setAudioRoute(outputId: string): Promise<boolean>;

  /**
   * A page of this user's call history as the server keeps it (`GET /v1/calls`, any device, missed calls included),
   * newest first; pass a page's `nextBefore` as `before` for the next.
   * @throws RingerError `invalid_argument` (limit not 1 to 100, before not a call id), `not_logged_in`,
   *   `server_refused`, `network`.
   */
  getRecentCalls(options?: RecentCallsOptions): Promise<RecentCallsPage>;

  /**
   * The call history kept natively across launches, newest first: at most `limit` entries (1 to 100,
   * default 100).
   * @throws RingerError `invalid_argument` (limit out of range).
   */
  getCallHistory(limit?: number): Promise<HistoryEntry[]>;

  /**
   * Listens to every event. Listeners may be added before `configure`; all share one native subscription,
   * which goes when the last listener is removed. A listener that throws does not stop the others (see
   * `setListenerErrorHandler`).
   * @throws RingerError `invalid_argument` when `listener` is not a function.
   */
  addListener(listener: RingerListener): Subscription;
  /**
   * Listens to the events of one type, e.g. `addListener('accepted', (e) => join(e.media))`.
   * @throws RingerError `invalid_argument` for an unknown type or a listener that is not a function.
   */
  addListener<T extends RingerEventType>(type: T, listener: (event: RingerEventOf<T>) => void): Subscription;

  /**
   * Sets who is told when a listener throws; `null` restores the default, which reports the error to React
   * Native's global handler as non-fatal.
   */
  setListenerErrorHandler(handler: ListenerErrorHandler | null): void;

  /** Counts of native events dropped as unknown or malformed (both 0 unless the halves' versions differ). */
  getDiagnostics(): Diagnostics;
}

/** Runs one native call, turning whatever it throws or rejects with into a `RingerError`. */
async function callNative<T>(invoke: () => Promise<T>): Promise<T> {
  try {
    return await invoke();
  } catch (error) {
    throw toRingerError(error);
  }
}

/**
 * Makes the API over a native module. `native` is called only from `configure` on, never before; when it
 * throws (no such module), `configure` rejects with a `RingerError` `native`. (src/index.ts passes the
 * module src/NativeRinger.ts looked up with `getEnforcing` on import, React Native's convention, which
 * throws at import when the module is missing.)
 */
export function createRinger(native: () => Spec): RingerClient {
  const hub = new EventHub((handler) => native().onEvent(handler));
  let configured = false;
  let replayFetched = false;
  let configuring: Promise<NativeState> | null = null;

  async function runConfigure(server: string | null): Promise<NativeState> {
    const module = await callNative(async () => native());
    hub.attach();
    const state = narrowNativeState(await callNative(() => module.configure({ server })));
    if (!replayFetched) {
      const initial = narrowEventList(await callNative(() => module.getInitialEvents()));
      replayFetched = true;
      hub.deliverReplay(initial);
    }
    configured = true;
    return state;
  }

  async function requireConfigured(): Promise<Spec> {
    if (!configured && configuring !== null) {
      await configuring.catch(() => undefined);
    }
    if (!configured) {
      throw new RingerError('not_configured', 'Call Ringer.configure() and wait for it first.');
    }
    return native();
  }

  function addListener(
    typeOrListener: RingerEventType | RingerListener,
    maybeListener?: (event: never) => void,
  ): Subscription {
    if (typeof typeOrListener === 'function') {
      return hub.add(null, typeOrListener);
    }
    if (!(EVENT_TYPES as readonly unknown[]).includes(typeOrListener)) {
      throw invalidArgument('type must be a Ringer event type.');
    }
    if (typeof maybeListener !== 'function') {
      throw invalidArgument('listener must be a function.');
    }
    return hub.add(typeOrListener, maybeListener as RingerListener);
  }

  return {
    async configure(options?: ConfigureOptions): Promise<NativeState> {
      const server = serverArgument(optionsArgument(options, 'options')['server']);
      const previous = configuring ?? Promise.resolve(null);
      const next = previous.catch(() => null).then(() => runConfigure(server));
      configuring = next;
      try {
        return await next;
      } finally {
        if (configuring === next) {
          configuring = null;
        }
      }
    },

    async getInitialEvents(): Promise<RingerEvent[]> {
      await requireConfigured();
      return hub.takeReplay();
    },

    async login(userToken: string): Promise<LoginResult> {
      const token = nonEmptyStringArgument(userToken, 'userToken');
      const module = await requireConfigured();
      return narrowLoginResult(await callNative(() => module.login(token)));
    },

    async logout(): Promise<void> {
      const module = await requireConfigured();
      await callNative(() => module.logout());
    },

    async startCall(callee: string, options?: StartCallOptions): Promise<PlacedCall> {
      const user = nonEmptyStringArgument(callee, 'callee');
      const given = optionsArgument(options, 'options');
      const video = booleanOption(given['video'], 'video', false);
      const waiting = callWaitingOption(given['callWaiting']);
      const module = await requireConfigured();
      return narrowPlacedCall(await callNative(() => module.startCall(user, video, waiting)));
    },

    async startGroupCall(callees: readonly string[], options?: StartGroupCallOptions): Promise<PlacedCall> {
      const users = calleesArgument(callees);
      const given = optionsArgument(options, 'options');
      const video = booleanOption(given['video'], 'video', false);
      const policy = answerPolicyOption(given['answerPolicy']);
      const waiting = callWaitingOption(given['callWaiting']);
      const module = await requireConfigured();
      return narrowPlacedCall(await callNative(() => module.startGroupCall(users, video, policy, waiting)));
    },

    async ringMore(callId: string, callees: readonly string[]): Promise<Participant[]> {
      const id = callIdArgument(callId);
      const users = calleesArgument(callees);
      const module = await requireConfigured();
      return narrowParticipants(await callNative(() => module.ringMore(id, users)));
    },

    async answer(callId: string): Promise<void> {
      const id = callIdArgument(callId);
      const module = await requireConfigured();
      await callNative(() => module.answer(id));
    },

    async decline(callId: string): Promise<void> {
      const id = callIdArgument(callId);
      const module = await requireConfigured();
      await callNative(() => module.decline(id));
    },

    async hangUp(callId: string): Promise<void> {
      const id = callIdArgument(callId);
      const module = await requireConfigured();
      await callNative(() => module.hangUp(id));
    },

    async getCalls(): Promise<Call[]> {
      const module = await requireConfigured();
      return narrowCalls(await callNative(() => module.getCalls()));
    },

    async getReadiness(): Promise<string[]> {
      const module = await requireConfigured();
      return narrowProblems(await callNative(() => module.getReadiness()));
    },

    async openReadinessSettings(problem: string): Promise<boolean> {
      const name = nonEmptyStringArgument(problem, 'problem');
      const module = await requireConfigured();
      return narrowOpened(await callNative(() => module.openReadinessSettings(name)));
    },

    async getRecentCalls(options?: RecentCallsOptions): Promise<RecentCallsPage> {
      const { limit, before } = recentCallsOptions(options);
      const module = await requireConfigured();
      return narrowRecentCalls(await callNative(() => module.getRecentCalls(limit, before)));
    },

    async setHeld(callId: string, held: boolean): Promise<boolean> {
      const id = callIdArgument(callId);
      const value = booleanArgument(held, 'held');
      const module = await requireConfigured();
      return narrowBoolean(await callNative(() => module.setHeld(id, value)), 'taken');
    },

    async setMuted(callId: string, muted: boolean): Promise<boolean> {
      const id = callIdArgument(callId);
      const value = booleanArgument(muted, 'muted');
      const module = await requireConfigured();
      return narrowBoolean(await callNative(() => module.setMuted(id, value)), 'taken');
    },

    async playDtmf(callId: string, digits: string): Promise<boolean> {
      const id = callIdArgument(callId);
      const keys = dtmfArgument(digits);
      const module = await requireConfigured();
      return narrowBoolean(await callNative(() => module.playDtmf(id, keys)), 'taken');
    },

    async getAudioRoutes(): Promise<AudioRoutes> {
      const module = await requireConfigured();
      return narrowAudioRoutes(await callNative(() => module.getAudioRoutes()));
    },

    async setAudioRoute(outputId: string): Promise<boolean> {
      const id = nonEmptyStringArgument(outputId, 'outputId');
      const module = await requireConfigured();
      return narrowBoolean(await callNative(() => module.setAudioRoute(id)), 'taken');
    },

    async getCallHistory(limit?: number): Promise<HistoryEntry[]> {
      const count = historyLimitArgument(limit);
      const module = await requireConfigured();
      return narrowHistory(await callNative(() => module.getCallHistory(count)));
    },

    addListener: addListener as RingerClient['addListener'],

    setListenerErrorHandler(handler: ListenerErrorHandler | null): void {
      hub.setErrorHandler(handler);
    },

    getDiagnostics(): Diagnostics {
      return hub.diagnostics();
    },
  };
}

/**
 * A group call's callee list: a non-empty array of distinct, non-empty user ids (the server says more, such as its
 * limit on callees).
 * @throws RingerError `invalid_argument`.
 */
function calleesArgument(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidArgument('callees must be a non-empty array of user ids.');
  }
  const users = value.map((user, index) => nonEmptyStringArgument(user, `callees[${index}]`));
  if (new Set(users).size !== users.length) {
    throw invalidArgument('callees must name each user once.');
  }
  return users;
}

/**
 * `callWaiting` as the native halves take it: `"on"`, `"off"`, or `""` (left out: the server decides).
 * @throws RingerError `invalid_argument` when given and not a boolean.
 */
function callWaitingOption(value: unknown): string {
  if (value === undefined) {
    return '';
  }
  return booleanOption(value, 'callWaiting', false) ? 'on' : 'off';
}

/**
 * `getRecentCalls`' options as the native halves take them: `limit` 0 for the server's default, `before` null.
 * @throws RingerError `invalid_argument` for a limit that is not a whole number from 1 to 100, or a `before` that is no
 *   call id.
 */
function recentCallsOptions(options: unknown): { limit: number; before: string | null } {
  const given = optionsArgument(options, 'options');
  const limit = given['limit'];
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw invalidArgument('limit must be a whole number from 1 to 100.');
  }
  const before = given['before'] === undefined ? null : callIdArgument(given['before']);
  return { limit: (limit as number | undefined) ?? 0, before };
}

const ANSWER_POLICIES: readonly AnswerPolicy[] = ['first_answer', 'all_may_join'];

/** `answerPolicy`: `"first_answer"` when left out. @throws RingerError `invalid_argument` for another value. */
function answerPolicyOption(value: unknown): AnswerPolicy {
  if (value === undefined) {
    return 'first_answer';
  }
  if (typeof value !== 'string' || !(ANSWER_POLICIES as readonly string[]).includes(value)) {
    throw invalidArgument('answerPolicy must be "first_answer" or "all_may_join".');
  }
  return value as AnswerPolicy;
}
