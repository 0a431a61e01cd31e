// Run-time narrowing of what the native half sends: the codegen spec carries events and results as untyped
// objects (`UnsafeObject`), so every one is checked here, field by field, and rebuilt as the public type
// (src/types.ts) before the app sees it. Nothing native can put a wrong shape in front of the app.
//
// Forward compatibility: the JavaScript bundle can be newer than the native build it runs on (an over-the-air
// update, a development client built before the package was updated). A key this version added after the first
// native halves shipped, which an older native build therefore never sends, is read as `null` when it is missing,
// through `Reader.addedLater`; a key that is there with a value of the wrong type still fails, as does a missing
// key of the original shapes. The keys added later, all read that way:
// - `Call.media` (`getCalls()`, and `configure`'s `calls`): the media grant of an answered call, so a JavaScript
//   instance started during the call rejoins its media. An older native build sends no `media`: read as `null`,
//   "no grant yet", which is what such a build could tell.
// - `Call.participants` and `PlacedCall.participants` (group calls): everyone rung and their states; an older native
//   build knows no group calls, so `null`, "a 1:1 call", is right.
// - `IncomingEvent.group` (group calls): the push's count and some of the others; `null` from an older build too.
// - `IncomingEvent.waiting` (call waiting): whether the call rang during another; `false` from an older build.
// A key added in a later version joins this list and is read with `addedLater`, so an older native build keeps
// working with the newer bundle.

import { RingerError } from './errors';
import type {
  AudioOutput,
  AudioRoutes,
  Call,
  CallAnsweredTaskData,
  CallDirection,
  CallState,
  ConnectionStatus,
  HistoryEntry,
  IncomingGroup,
  LoginResult,
  MediaGrant,
  NativePlatform,
  NativeState,
  Participant,
  Party,
  PlacedCall,
  RecentCall,
  RecentCallsPage,
  RingerEvent,
  RingerEventType,
} from './types';
import { isCallId } from './validate';

/** A field did not match; `path` names it, e.g. `event.caller.name`. */
class Mismatch {
  constructor(readonly path: string) {}
}

type Fields = { readonly [key: string]: unknown };

/** Reads the fields of one object, naming each by its path when it does not match. */
class Reader {
  private constructor(
    private readonly fields: Fields,
    private readonly path: string,
  ) {}

  static of(value: unknown, path: string): Reader {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Mismatch(path);
    }
    return new Reader(value as Fields, path);
  }

  private raw(key: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.fields, key) ? this.fields[key] : undefined;
  }

  private fail(key: string): never {
    throw new Mismatch(`${this.path}.${key}`);
  }

  string(key: string): string {
    const value = this.raw(key);
    return typeof value === 'string' ? value : this.fail(key);
  }

  /** A string or `null`; the key must be present (the native halves send `null`, never leave it out). */
  stringOrNull(key: string): string | null {
    const value = this.raw(key);
    return value === null || typeof value === 'string' ? value : this.fail(key);
  }

  boolean(key: string): boolean {
    const value = this.raw(key);
    return typeof value === 'boolean' ? value : this.fail(key);
  }

  number(key: string): number {
    const value = this.raw(key);
    return typeof value === 'number' && Number.isFinite(value) ? value : this.fail(key);
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T {
    const value = this.raw(key);
    return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : this.fail(key);
  }

  /** A server call id, lowercased. */
  callId(key: string): string {
    const value = this.raw(key);
    return isCallId(value) ? value.toLowerCase() : this.fail(key);
  }

  strings(key: string): string[] {
    const value = this.raw(key);
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      return this.fail(key);
    }
    return [...(value as string[])];
  }

  object(key: string): Reader {
    return Reader.of(this.raw(key), `${this.path}.${key}`);
  }

  list<T>(key: string, read: (reader: Reader) => T): T[] {
    const value = this.raw(key);
    if (!Array.isArray(value)) {
      return this.fail(key);
    }
    return value.map((item, index) => read(Reader.of(item, `${this.path}.${key}[${index}]`)));
  }

  party(key: string): Party {
    return readParty(this.object(key));
  }

  media(key: string): MediaGrant {
    const media = this.object(key);
    return { url: media.string('url'), token: media.string('token') };
  }

  /** Whether the key holds `null` (present and null). */
  isNull(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.fields, key) && this.fields[key] === null;
  }

  /** A media grant or `null`; the key must be present. */
  mediaOrNull(key: string): MediaGrant | null {
    return this.raw(key) === null ? null : this.media(key);
  }

  /**
   * A key this version added later (see the list at the top of this file): `null` when the object does not have it
   * (a native build older than the key), else `read(key)`, which fails on a value of the wrong type as for any key.
   */
  addedLater<T>(key: string, read: (key: string) => T | null): T | null {
    return Object.prototype.hasOwnProperty.call(this.fields, key) ? read(key) : null;
  }
}

const DIRECTIONS: readonly CallDirection[] = ['incoming', 'outgoing'];
const CALL_STATES: readonly CallState[] = ['ringing', 'answering', 'active'];
const PLATFORMS: readonly NativePlatform[] = ['ios', 'android'];
const CONNECTION_STATUSES: readonly ConnectionStatus[] = [
  'connected',
  'lost',
  'restored',
  'closed',
  'replaced',
  'unauthorized',
];

/** How each event type is read; the keys are exactly the known `RingerEventType`s. */
const EVENT_READERS: { readonly [T in RingerEventType]: (event: Reader) => RingerEvent } = {
  incoming: (e) => ({
    type: 'incoming',
    callId: e.callId('callId'),
    caller: e.party('caller'),
    hasVideo: e.boolean('hasVideo'),
    group: e.addedLater('group', (key) => readGroupOrNull(e, key)),
    waiting: e.addedLater('waiting', (key) => e.boolean(key)) ?? false,
  }),
  outgoing: (e) => ({
    type: 'outgoing',
    callId: e.callId('callId'),
    callee: e.party('callee'),
    hasVideo: e.boolean('hasVideo'),
  }),
  ringing: (e) => ({ type: 'ringing', callId: e.callId('callId') }),
  accepted: (e) => ({
    type: 'accepted',
    callId: e.callId('callId'),
    direction: e.oneOf('direction', DIRECTIONS),
    media: e.media('media'),
  }),
  ended: (e) => ({
    type: 'ended',
    callId: e.callId('callId'),
    reason: e.string('reason'),
    serverReason: e.stringOrNull('serverReason'),
  }),
  readinessChanged: (e) => ({ type: 'readinessChanged', problems: e.strings('problems') }),
  connectionChanged: (e) => ({ type: 'connectionChanged', status: e.oneOf('status', CONNECTION_STATUSES) }),
  requestFailed: (e) => ({ type: 'requestFailed', callId: e.callId('callId'), detail: e.string('detail') }),
  eventsDropped: (e) => ({ type: 'eventsDropped', count: e.number('count') }),
  participants: (e) => ({
    type: 'participants',
    callId: e.callId('callId'),
    participants: e.list('participants', readParticipant),
  }),
  held: (e) => ({ type: 'held', callId: e.callId('callId'), held: e.boolean('held') }),
  muted: (e) => ({ type: 'muted', callId: e.callId('callId'), muted: e.boolean('muted') }),
  dtmf: (e) => ({ type: 'dtmf', callId: e.callId('callId'), digits: e.string('digits') }),
  audioRouteChanged: (e) => ({ type: 'audioRouteChanged', ...readAudioRoutes(e) }),
  callBackRequested: (e) => ({ type: 'callBackRequested', userId: e.string('userId'), hasVideo: e.boolean('hasVideo') }),
};

/** An audio output: `{id, route, name}`. */
function readAudioOutput(output: Reader): AudioOutput {
  return { id: output.string('id'), route: output.string('route'), name: output.string('name') };
}

/** `{current, outputs}`, `current` an output or `null`. */
function readAudioRoutes(routes: Reader): AudioRoutes {
  return {
    current: routes.isNull('current') ? null : readAudioOutput(routes.object('current')),
    outputs: routes.list('outputs', readAudioOutput),
  };
}

/** One call of the server's history, as the native halves hand it over. */
function readRecentCall(call: Reader): RecentCall {
  return {
    callId: call.callId('callId'),
    state: call.string('state'),
    caller: call.party('caller'),
    callee: call.party('callee'),
    hasVideo: call.boolean('hasVideo'),
    createdAt: call.number('createdAt'),
    acceptedAt: call.isNull('acceptedAt') ? null : call.number('acceptedAt'),
    endedAt: call.isNull('endedAt') ? null : call.number('endedAt'),
    endedBy: call.stringOrNull('endedBy'),
    endReason: call.stringOrNull('endReason'),
    waiting: call.boolean('waiting'),
    participants: readParticipantsOrNull(call, 'participants'),
  };
}

/** `getRecentCalls`' answer. @throws RingerError `native` when it does not match `RecentCallsPage`. */
export function narrowRecentCalls(value: unknown): RecentCallsPage {
  return narrowResult(value, 'page', (page) => ({
    calls: page.list('calls', readRecentCall),
    nextBefore: page.isNull('nextBefore') ? null : page.callId('nextBefore'),
  }));
}

/** `getAudioRoutes`' answer. @throws RingerError `native` when it does not match `AudioRoutes`. */
export function narrowAudioRoutes(value: unknown): AudioRoutes {
  return narrowResult(value, 'routes', readAudioRoutes);
}

/** A boolean a method answers. @throws RingerError `native` when it is not one. */
export function narrowBoolean(value: unknown, what: string): boolean {
  return narrowResult({ [what]: value }, 'answer', (answer) => answer.boolean(what));
}

/** Every event type this version knows, in the order of the union (what the vectors must each exercise). */
export const EVENT_TYPES: readonly RingerEventType[] = Object.keys(EVENT_READERS) as RingerEventType[];

/** What `narrowEvent` made of one native payload. */
export type NarrowedEvent =
  | { readonly kind: 'event'; readonly event: RingerEvent }
  | { readonly kind: 'unknown'; readonly type: string }
  | { readonly kind: 'malformed'; readonly path: string };

/**
 * Checks one native event payload. A payload whose `type` this version does not know is `unknown`; one whose
 * fields do not match its type is `malformed` (naming the first field that did not). Never throws.
 */
export function narrowEvent(payload: unknown): NarrowedEvent {
  try {
    const event = Reader.of(payload, 'event');
    const type = event.string('type');
    if (!Object.prototype.hasOwnProperty.call(EVENT_READERS, type)) {
      return { kind: 'unknown', type };
    }
    return { kind: 'event', event: EVENT_READERS[type as RingerEventType](event) };
  } catch (error) {
    if (error instanceof Mismatch) {
      return { kind: 'malformed', path: error.path };
    }
    throw error;
  }
}

/** Reads a native method's answer with `read`, or rejects with `native` naming the field that did not match. */
function narrowResult<T>(value: unknown, what: string, read: (reader: Reader) => T): T {
  try {
    return read(Reader.of(value, what));
  } catch (error) {
    if (error instanceof Mismatch) {
      throw new RingerError('native', `The native module answered an unexpected ${error.path}.`);
    }
    throw error;
  }
}

/** The fields every call shape shares: `Call`, `PlacedCall` and `HistoryEntry`. */
function readCallFields(call: Reader): Pick<Call, 'callId' | 'direction' | 'peer' | 'hasVideo'> {
  return {
    callId: call.callId('callId'),
    direction: call.oneOf('direction', DIRECTIONS),
    peer: call.party('peer'),
    hasVideo: call.boolean('hasVideo'),
  };
}

function readCall(call: Reader): Call {
  return {
    ...readCallFields(call),
    state: call.oneOf('state', CALL_STATES),
    // Added later: an older native build sends no `media` (the list at the top of this file).
    media: call.addedLater('media', (key) => call.mediaOrNull(key)),
    // Added later (group calls): absent from older native builds, null for a 1:1 call.
    participants: call.addedLater('participants', (key) => readParticipantsOrNull(call, key)),
  };
}

function readParticipant(participant: Reader): Participant {
  return { user: participant.party('user'), state: participant.string('state') };
}

/** An incoming group call's `{count, others}` or `null`; the key must be present. */
function readGroupOrNull(reader: Reader, key: string): IncomingGroup | null {
  if (reader.isNull(key)) {
    return null;
  }
  const group = reader.object(key);
  return { count: group.number('count'), others: group.list('others', readParty) };
}

function readParty(party: Reader): Party {
  return { id: party.string('id'), name: party.stringOrNull('name') };
}

/** A list of participants or `null`; the key must be present. */
function readParticipantsOrNull(reader: Reader, key: string): Participant[] | null {
  return reader.isNull(key) ? null : reader.list(key, readParticipant);
}

function readHistoryEntry(entry: Reader): HistoryEntry {
  return {
    ...readCallFields(entry),
    startedAt: entry.number('startedAt'),
    answered: entry.boolean('answered'),
    endedAt: entry.number('endedAt'),
    reason: entry.string('reason'),
    serverReason: entry.stringOrNull('serverReason'),
  };
}

/**
 * The lists native methods answer (calls, history, events) arrive as arrays; they are wrapped in a field so
 * that one reader names the failing element (`calls[2].state`).
 */
function narrowList<T>(value: unknown, what: string, read: (reader: Reader) => T): T[] {
  return narrowResult({ [what]: value }, 'answer', (answer) => answer.list(what, read));
}

/** `configure`'s answer. @throws RingerError `native` when it does not match `NativeState`. */
export function narrowNativeState(value: unknown): NativeState {
  return narrowResult(value, 'state', (state) => ({
    server: state.stringOrNull('server'),
    deviceId: state.string('deviceId'),
    platform: state.oneOf('platform', PLATFORMS),
    userId: state.stringOrNull('userId'),
    calls: state.list('calls', readCall),
    readiness: state.strings('readiness'),
  }));
}

/** `login`'s answer. @throws RingerError `native` when it does not match. */
export function narrowLoginResult(value: unknown): LoginResult {
  return narrowResult(value, 'login', (login) => ({ userId: login.string('userId') }));
}

/** `startCall`'s answer. @throws RingerError `native` when it does not match `PlacedCall`. */
export function narrowPlacedCall(value: unknown): PlacedCall {
  return narrowResult(value, 'call', (call) => ({
    ...readCallFields(call),
    state: call.string('state'),
    participants: call.addedLater('participants', (key) => readParticipantsOrNull(call, key)),
  }));
}

/** `ringMore`'s answer: the call's participants. @throws RingerError `native` when it does not match. */
export function narrowParticipants(value: unknown): Participant[] {
  return narrowList(value, 'participants', readParticipant);
}

/** `getCalls`' answer. @throws RingerError `native` when an element does not match `Call`. */
export function narrowCalls(value: unknown): Call[] {
  return narrowList(value, 'calls', readCall);
}

/** `getCallHistory`'s answer. @throws RingerError `native` when an element does not match `HistoryEntry`. */
export function narrowHistory(value: unknown): HistoryEntry[] {
  return narrowList(value, 'history', readHistoryEntry);
}

/** `getReadiness`' answer. @throws RingerError `native` when it is not a list of strings. */
export function narrowProblems(value: unknown): string[] {
  return narrowResult({ problems: value }, 'answer', (answer) => answer.strings('problems'));
}

/** `openReadinessSettings`' answer. @throws RingerError `native` when it is not a boolean. */
export function narrowOpened(value: unknown): boolean {
  return narrowResult({ opened: value }, 'answer', (answer) => answer.boolean('opened'));
}

/** `getInitialEvents`' answer as a list; each element is then narrowed like a live event. */
export function narrowEventList(value: unknown): unknown[] {
  if (!Array.isArray(value)) {
    throw new RingerError('native', 'The native module answered an unexpected answer.events.');
  }
  return [...(value as unknown[])];
}

/** The Headless JS task's data. @throws RingerError `native` when it does not match `CallAnsweredTaskData`. */
export function narrowCallAnsweredTaskData(value: unknown): CallAnsweredTaskData {
  return narrowResult(value, 'taskData', (data) => ({
    callId: data.callId('callId'),
    direction: data.oneOf('direction', DIRECTIONS),
  }));
}
