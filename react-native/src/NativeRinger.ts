// The codegen spec of the `Ringer` TurboModule: the one place the JavaScript layer and the two native halves
// agree on names and types (package.json `codegenConfig`: library `RingerSpec`, Android package
// `dev.ringer.reactnative`). Codegen generates from it the Java base class `NativeRingerSpec` and the
// Objective-C++ protocol `NativeRingerSpec` / base `NativeRingerSpecBase`; the halves implement those.
//
// Only codegen-supported types appear here. Objects that have several shapes (events, calls, the native
// state) travel as `UnsafeObject` (Android ReadableMap/WritableMap, iOS NSDictionary) and are narrowed at run
// time in src/narrow.ts; the app never sees this spec, only src/index.ts.
//
// `EventEmitter` and `UnsafeObject` are imported by name from React Native's deep path because React Native
// 0.79's codegen recognises an event emitter property only by the bare type name `EventEmitter` (see
// types/react-native.d.ts); `CodegenTypes.EventEmitter` works from 0.80 on. Type-only imports leave nothing
// at run time, so 0.80's deep-import warning does not fire.

import type { TurboModule } from 'react-native';
import { TurboModuleRegistry } from 'react-native';
import type { EventEmitter, UnsafeObject } from 'react-native/Libraries/Types/CodegenTypes';

export interface Spec extends TurboModule {
  /**
   * Stores `options.server` when not null (used from the next cold start on), else keeps the native default,
   * and answers the native state: `{server, deviceId, platform, userId, calls, readiness}`.
   * Rejects `not_configured` (no server known at all), `invalid_argument` (not an http(s) URL).
   */
  configure(options: { server: string | null }): Promise<UnsafeObject>;

  /** The relay's attach: the events from before this JavaScript instance attached, once; then `[]`. */
  getInitialEvents(): Promise<UnsafeObject[]>;

  /** Logs in with the app's user token (kept natively); answers `{userId}`. */
  login(userToken: string): Promise<UnsafeObject>;

  /** Logs out and deletes the stored token; rejects `call_in_progress` while any call rings or is up. */
  logout(): Promise<void>;

  /**
   * Places a call to the user `callee`; answers the server's call `{callId, direction, peer, hasVideo, state}`.
   * `callWaiting`: `"on"`, `"off"`, or `""` for the server's setting.
   */
  startCall(callee: string, video: boolean, callWaiting: string): Promise<UnsafeObject>;

  /**
   * Rings the users `callees` in one call (`answerPolicy`: `first_answer` or `all_may_join`); answers the server's
   * call `{callId, direction, peer, hasVideo, state, participants}`.
   */
  startGroupCall(callees: string[], video: boolean, answerPolicy: string, callWaiting: string): Promise<UnsafeObject>;

  /** Rings more users into a call; answers its participants `[{user, state}]`. */
  ringMore(callId: string, callees: string[]): Promise<UnsafeObject[]>;

  /** Answers through CallKit / Telecom, as the system UI would. */
  answer(callId: string): Promise<void>;

  /** Declines an incoming call that still rings; else `wrong_state`. */
  decline(callId: string): Promise<void>;

  /** Ends any call this phone has (cancel, decline or end, as the SDK's call machine decides). */
  hangUp(callId: string): Promise<void>;

  /** The calls up on this phone now: `[{callId, direction, peer, hasVideo, state, media}]` (`media` null until accepted). */
  getCalls(): Promise<UnsafeObject[]>;

  /** Refreshes the readiness pre-flight and answers its problem names. */
  getReadiness(): Promise<string[]>;

  /** Opens the system settings page that fixes `problem`; `false` when there is none. */
  openReadinessSettings(problem: string): Promise<boolean>;

  /** Holds or resumes an answered call through the system call UI; `false` when the call cannot take it. */
  setHeld(callId: string, held: boolean): Promise<boolean>;

  /** Mutes or unmutes a call through the system call UI; `false` when the call is over. */
  setMuted(callId: string, muted: boolean): Promise<boolean>;

  /** Plays keypad tones on the call that has the audio; `false` when this call does not (held, not answered). */
  playDtmf(callId: string, digits: string): Promise<boolean>;

  /** Where the calls' audio goes and could go: `{current, outputs}`, each output `{id, route, name}`. */
  getAudioRoutes(): Promise<UnsafeObject>;

  /** Sends the calls' audio to the output with this id; `false` when the system lists none. */
  setAudioRoute(outputId: string): Promise<boolean>;

  /**
   * A page of the server's call history (`GET /v1/calls`): `{calls, nextBefore}`; `limit` 0 for the server's default,
   * `before` a page's `nextBefore` or null for the newest.
   */
  getRecentCalls(limit: number, before: string | null): Promise<UnsafeObject>;

  /** At most `limit` history entries, newest first. */
  getCallHistory(limit: number): Promise<UnsafeObject[]>;

  /** Every event, as one object with a `type` field (src/types.ts `RingerEvent`). */
  readonly onEvent: EventEmitter<UnsafeObject>;
}

export default TurboModuleRegistry.getEnforcing<Spec>('Ringer');
