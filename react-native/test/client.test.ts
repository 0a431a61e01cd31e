// The JavaScript layer against a fake native module: the configure gate, argument checks, error mapping,
// result narrowing, listener bookkeeping and the replay of events from before JavaScript attached.

import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRinger } from '../src/client';
import type { RingerClient } from '../src/client';
import { RingerError } from '../src/errors';
import { HOLD_CAPACITY } from '../src/events';
import type { RingerEvent } from '../src/types';
import { ALICE_CALL, FakeNative, STATE, nativeRejection, settle } from './fakes/fakeNative';

const INCOMING = {
  type: 'incoming',
  callId: ALICE_CALL,
  caller: { id: 'alice', name: 'Alice' },
  hasVideo: false,
  group: null,
  waiting: false,
} as const;
const ACCEPTED = {
  type: 'accepted',
  callId: ALICE_CALL,
  direction: 'incoming',
  media: { url: 'wss://media.example.com', token: 'm-1' },
} as const;
const ENDED = { type: 'ended', callId: ALICE_CALL, reason: 'remote_ended', serverReason: 'ended' } as const;
const LOST = { type: 'connectionChanged', status: 'lost' } as const;

function setUp(): { native: FakeNative; ringer: RingerClient } {
  const native = new FakeNative();
  return { native, ringer: createRinger(() => native) };
}

async function configured(): Promise<{ native: FakeNative; ringer: RingerClient }> {
  const fixture = setUp();
  await fixture.ringer.configure({ server: 'https://ringer.example.com' });
  return fixture;
}

function recorder(ringer: RingerClient): RingerEvent[] {
  const seen: RingerEvent[] = [];
  ringer.addListener((event) => seen.push(event));
  return seen;
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<RingerError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RingerError, `expected a RingerError, got ${String(error)}`);
    assert.equal(error.code, code);
    return error;
  }
  throw new Error(`expected a rejection with ${code}`);
}

describe('before configure', () => {
  test('every method rejects not_configured and calls nothing native', async () => {
    const { native, ringer } = setUp();
    await rejectsWith(ringer.getInitialEvents(), 'not_configured');
    await rejectsWith(ringer.login('token'), 'not_configured');
    await rejectsWith(ringer.logout(), 'not_configured');
    await rejectsWith(ringer.startCall('bob'), 'not_configured');
    await rejectsWith(ringer.answer(ALICE_CALL), 'not_configured');
    await rejectsWith(ringer.decline(ALICE_CALL), 'not_configured');
    await rejectsWith(ringer.hangUp(ALICE_CALL), 'not_configured');
    await rejectsWith(ringer.getCalls(), 'not_configured');
    await rejectsWith(ringer.getReadiness(), 'not_configured');
    await rejectsWith(ringer.openReadinessSettings('battery_optimized'), 'not_configured');
    await rejectsWith(ringer.getCallHistory(), 'not_configured');
    await rejectsWith(ringer.setHeld(ALICE_CALL, true), 'not_configured');
    await rejectsWith(ringer.getAudioRoutes(), 'not_configured');
    assert.deepEqual(native.calls, []);
    assert.equal(native.subscribeCount, 0);
  });

  test('listeners may be added, and nothing native is touched until configure', () => {
    const { native, ringer } = setUp();
    const subscription = ringer.addListener(() => undefined);
    assert.equal(native.subscribeCount, 0);
    subscription.remove();
  });

  test('a failed configure leaves methods not_configured', async () => {
    const { native, ringer } = setUp();
    native.answers['configure'] = () => Promise.reject(nativeRejection('not_configured', 'No server known.'));
    await rejectsWith(ringer.configure(), 'not_configured');
    await rejectsWith(ringer.getCalls(), 'not_configured');
    assert.deepEqual(native.callsOf('getCalls'), []);
    assert.deepEqual(native.callsOf('getInitialEvents'), []);
  });

  test('a method called while configure is under way waits for it', async () => {
    const { native, ringer } = setUp();
    const configuring = ringer.configure();
    const calls = ringer.getCalls();
    assert.deepEqual(await calls, []);
    await configuring;
    assert.deepEqual(
      native.calls.map((call) => call.method),
      ['configure', 'getInitialEvents', 'getCalls'],
    );
  });
});

describe('configure', () => {
  test('passes the server, or null for the native default, and answers the narrowed state', async () => {
    const { native, ringer } = setUp();
    const state = await ringer.configure({ server: 'https://ringer.example.com' });
    await ringer.configure();
    assert.deepEqual(native.callsOf('configure'), [[{ server: 'https://ringer.example.com' }], [{ server: null }]]);
    assert.equal(state.platform, 'ios');
    assert.equal(state.deviceId, 'device-1');
  });

  test('refuses a server that is not an http(s) URL before calling native code', async () => {
    const { native, ringer } = setUp();
    await rejectsWith(ringer.configure({ server: 'ftp://ringer.example.com' }), 'invalid_argument');
    await rejectsWith(ringer.configure({ server: '' }), 'invalid_argument');
    await rejectsWith(ringer.configure({ server: 42 as unknown as string }), 'invalid_argument');
    await rejectsWith(ringer.configure('https://x' as unknown as object), 'invalid_argument');
    assert.deepEqual(native.calls, []);
  });

  test('fetches the initial events once however often it is called', async () => {
    const { native, ringer } = setUp();
    await ringer.configure();
    await ringer.configure({ server: 'https://other.example.com' });
    assert.equal(native.callsOf('getInitialEvents').length, 1);
  });

  test('a missing native module rejects native', async () => {
    const ringer = createRinger(() => {
      throw new Error("TurboModuleRegistry.getEnforcing(...): 'Ringer' could not be found.");
    });
    await rejectsWith(ringer.configure(), 'native');
  });

  test('a native state of the wrong shape rejects native', async () => {
    const { native, ringer } = setUp();
    native.answers['configure'] = { server: null, deviceId: 'd', platform: 'windows', userId: null, calls: [], readiness: [] };
    const error = await rejectsWith(ringer.configure(), 'native');
    assert.ok(error.message.includes('state.platform'));
  });
});

describe('argument checks', () => {
  test('call ids must be UUID strings and are sent lowercase', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.answer('not-a-call'), 'invalid_argument');
    await rejectsWith(ringer.decline(''), 'invalid_argument');
    await rejectsWith(ringer.hangUp(42 as unknown as string), 'invalid_argument');
    await rejectsWith(ringer.answer(`${ALICE_CALL}x`), 'invalid_argument');
    assert.deepEqual(native.callsOf('answer'), []);
    await ringer.answer(ALICE_CALL.toUpperCase());
    await ringer.decline(ALICE_CALL);
    await ringer.hangUp(ALICE_CALL.toUpperCase());
    assert.deepEqual(native.callsOf('answer'), [[ALICE_CALL]]);
    assert.deepEqual(native.callsOf('hangUp'), [[ALICE_CALL]]);
  });

  test('the token must be a non-empty string, and is never echoed in the error', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.login(''), 'invalid_argument');
    await rejectsWith(ringer.login('   '), 'invalid_argument');
    const error = await rejectsWith(ringer.login({ jwt: 'secret-token' } as unknown as string), 'invalid_argument');
    assert.ok(!error.message.includes('secret-token'));
    assert.deepEqual(native.callsOf('login'), []);
    assert.deepEqual(await ringer.login('eyJ.token'), { userId: 'alice' });
  });

  test('the callee must be non-empty and video a boolean', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.startCall(''), 'invalid_argument');
    await rejectsWith(ringer.startCall(' '), 'invalid_argument');
    await rejectsWith(ringer.startCall('bob', { video: 'yes' as unknown as boolean }), 'invalid_argument');
    await rejectsWith(ringer.startCall('bob', { callWaiting: 1 as unknown as boolean }), 'invalid_argument');
    assert.deepEqual(native.callsOf('startCall'), []);
    await ringer.startCall('bob');
    await ringer.startCall('bob', { video: true });
    await ringer.startCall('bob', { callWaiting: true });
    await ringer.startCall('bob', { callWaiting: false });
    assert.deepEqual(native.callsOf('startCall'), [
      ['bob', false, ''],
      ['bob', true, ''],
      ['bob', false, 'on'],
      ['bob', false, 'off'],
    ]);
  });

  test('a group call names distinct callees and a known answer policy before anything is sent', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.startGroupCall([]), 'invalid_argument');
    await rejectsWith(ringer.startGroupCall('bob' as unknown as string[]), 'invalid_argument');
    await rejectsWith(ringer.startGroupCall(['bob', '']), 'invalid_argument');
    await rejectsWith(ringer.startGroupCall(['bob', 'bob']), 'invalid_argument');
    await rejectsWith(
      ringer.startGroupCall(['bob'], { answerPolicy: 'ring_in_turn' as unknown as 'first_answer' }),
      'invalid_argument',
    );
    assert.deepEqual(native.callsOf('startGroupCall'), []);
    const placed = await ringer.startGroupCall(['bob', 'carol']);
    assert.deepEqual(placed.participants, [
      { user: { id: 'bob', name: 'Bob' }, state: 'ringing' },
      { user: { id: 'carol', name: null }, state: 'busy' },
    ]);
    await ringer.startGroupCall(['bob'], { video: true, answerPolicy: 'all_may_join', callWaiting: true });
    assert.deepEqual(native.callsOf('startGroupCall'), [
      [['bob', 'carol'], false, 'first_answer', ''],
      [['bob'], true, 'all_may_join', 'on'],
    ]);
    // A 1:1 call's answer, and an older native build's, have no participants.
    assert.equal((await ringer.startCall('bob')).participants, null);
  });

  test('ring more takes a call id and callees, and answers the participants', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.ringMore('not-a-call', ['dave']), 'invalid_argument');
    await rejectsWith(ringer.ringMore(ALICE_CALL, []), 'invalid_argument');
    const participants = await ringer.ringMore(ALICE_CALL.toUpperCase(), ['dave']);
    assert.deepEqual(native.callsOf('ringMore'), [[ALICE_CALL, ['dave']]]);
    assert.equal(participants.length, 2);
    assert.equal(participants[1]?.state, 'ringing');
    native.answers['ringMore'] = [{ user: { id: 'dave' }, state: 'ringing' }];
    await rejectsWith(ringer.ringMore(ALICE_CALL, ['dave']), 'native');
  });

  test('the history limit is a whole number from 1 to 100, 100 by default', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.getCallHistory(0), 'invalid_argument');
    await rejectsWith(ringer.getCallHistory(101), 'invalid_argument');
    await rejectsWith(ringer.getCallHistory(2.5), 'invalid_argument');
    await ringer.getCallHistory();
    await ringer.getCallHistory(10);
    assert.deepEqual(native.callsOf('getCallHistory'), [[100], [10]]);
  });

  test('hold, mute and keypad tones take a call id and are checked before they reach the native half', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.setHeld('not-a-call', true), 'invalid_argument');
    await rejectsWith(ringer.setHeld(ALICE_CALL, 'yes' as unknown as boolean), 'invalid_argument');
    await rejectsWith(ringer.setMuted(ALICE_CALL, 1 as unknown as boolean), 'invalid_argument');
    for (const digits of ['', '12a', '1,2', '1'.repeat(65), 5 as unknown as string]) {
      await rejectsWith(ringer.playDtmf(ALICE_CALL, digits), 'invalid_argument');
    }
    assert.equal(await ringer.setHeld(ALICE_CALL.toUpperCase(), true), true);
    assert.equal(await ringer.setMuted(ALICE_CALL, false), true);
    native.answers['playDtmf'] = false;
    assert.equal(await ringer.playDtmf(ALICE_CALL, '0*#ABCD9'), false, 'the call does not have the audio');
    assert.deepEqual(native.callsOf('setHeld'), [[ALICE_CALL, true]]);
    assert.deepEqual(native.callsOf('setMuted'), [[ALICE_CALL, false]]);
    assert.deepEqual(native.callsOf('playDtmf'), [[ALICE_CALL, '0*#ABCD9']]);
    native.answers['setHeld'] = 'yes';
    await rejectsWith(ringer.setHeld(ALICE_CALL, true), 'native');
  });

  test('the audio routes are read and chosen by output id', async () => {
    const { native, ringer } = await configured();
    const speaker = { id: 'speaker', route: 'speaker', name: 'Speaker' };
    native.answers['getAudioRoutes'] = { current: speaker, outputs: [{ id: 'earpiece', route: 'earpiece', name: 'iPhone' }, speaker] };
    const routes = await ringer.getAudioRoutes();
    assert.deepEqual(routes.current, speaker);
    assert.equal(routes.outputs.length, 2);
    native.answers['getAudioRoutes'] = { current: null, outputs: [{ id: 'speaker', route: 'speaker' }] };
    await rejectsWith(ringer.getAudioRoutes(), 'native');
    await rejectsWith(ringer.setAudioRoute(''), 'invalid_argument');
    native.answers['setAudioRoute'] = false;
    assert.equal(await ringer.setAudioRoute('a4:c1:38:00:11:22-tsco'), false, 'the system lists no such output');
    assert.deepEqual(native.callsOf('setAudioRoute'), [['a4:c1:38:00:11:22-tsco']]);
  });

  test('the server\'s call history is read a page at a time', async () => {
    const { native, ringer } = await configured();
    const missed = {
      callId: ALICE_CALL, state: 'unanswered', caller: { id: 'alice', name: 'Alice' }, callee: { id: 'bob', name: null },
      hasVideo: false, createdAt: 1_800_000_000_000, acceptedAt: null, endedAt: 1_800_000_045_000, endedBy: null,
      endReason: null, waiting: false, participants: null,
    };
    native.answers['getRecentCalls'] = { calls: [missed], nextBefore: ALICE_CALL };
    assert.deepEqual(await ringer.getRecentCalls(), { calls: [missed], nextBefore: ALICE_CALL });
    await ringer.getRecentCalls({ limit: 20, before: ALICE_CALL.toUpperCase() });
    assert.deepEqual(native.callsOf('getRecentCalls'), [[0, null], [20, ALICE_CALL]]);
    for (const bad of [{ limit: 0 }, { limit: 101 }, { limit: 2.5 }, { before: 'not-a-call' }]) {
      await rejectsWith(ringer.getRecentCalls(bad), 'invalid_argument');
    }
    native.answers['getRecentCalls'] = { calls: [{ ...missed, createdAt: 'yesterday' }], nextBefore: null };
    await rejectsWith(ringer.getRecentCalls(), 'native');
  });

  test('the readiness problem must be non-empty', async () => {
    const { native, ringer } = await configured();
    await rejectsWith(ringer.openReadinessSettings(''), 'invalid_argument');
    assert.equal(await ringer.openReadinessSettings('full_screen_intent_denied'), true);
    assert.deepEqual(native.callsOf('openReadinessSettings'), [['full_screen_intent_denied']]);
  });

  test('addListener refuses an unknown type or a non-function', () => {
    const { ringer } = setUp();
    assert.throws(() => ringer.addListener('nope' as 'ended', () => undefined), { code: 'invalid_argument' });
    assert.throws(() => ringer.addListener('ended', 'f' as unknown as () => void), { code: 'invalid_argument' });
  });
});

describe('error mapping', () => {
  test('a native rejection keeps its code; server_refused carries problemType and status from userInfo', async () => {
    const { native, ringer } = await configured();
    native.answers['startCall'] = () =>
      Promise.reject(
        nativeRejection('server_refused', 'The server refused the call.', {
          problemType: 'https://ringer.dev/problems/callee-unknown',
          status: 404,
        }),
      );
    const error = await rejectsWith(ringer.startCall('nobody'), 'server_refused');
    assert.equal(error.problemType, 'https://ringer.dev/problems/callee-unknown');
    assert.equal(error.status, 404);
    assert.equal(error.message, 'The server refused the call.');
    assert.equal(error.name, 'RingerError');
  });

  test('every documented code passes through', async () => {
    const { native, ringer } = await configured();
    for (const code of ['unknown_call', 'wrong_state', 'call_ui_refused', 'network']) {
      native.answers['answer'] = () => Promise.reject(nativeRejection(code, code));
      await rejectsWith(ringer.answer(ALICE_CALL), code);
    }
    native.answers['login'] = () => Promise.reject(nativeRejection('other_user_logged_in', 'Log out first.'));
    await rejectsWith(ringer.login('token'), 'other_user_logged_in');
    native.answers['logout'] = () => Promise.reject(nativeRejection('call_in_progress', 'Hang up first.'));
    await rejectsWith(ringer.logout(), 'call_in_progress');
    native.answers['startCall'] = () => Promise.reject(nativeRejection('not_logged_in', 'Log in first.'));
    await rejectsWith(ringer.startCall('bob'), 'not_logged_in');
  });

  test('an unknown code, a plain Error, a string and a synchronous throw all become native', async () => {
    const { native, ringer } = await configured();
    native.answers['getCalls'] = () => Promise.reject(nativeRejection('E_SOMETHING_NEW', 'New.'));
    const unknown = await rejectsWith(ringer.getCalls(), 'native');
    assert.equal(unknown.nativeCode, 'E_SOMETHING_NEW');
    native.answers['getCalls'] = () => Promise.reject(new Error('plain'));
    await rejectsWith(ringer.getCalls(), 'native');
    native.answers['getCalls'] = () => Promise.reject('a string');
    await rejectsWith(ringer.getCalls(), 'native');
    native.answers['getCalls'] = () => {
      throw nativeRejection('unknown_call', 'thrown synchronously');
    };
    await rejectsWith(ringer.getCalls(), 'unknown_call');
  });

  test('a server_refused status given as text is still read; a missing userInfo leaves nulls', async () => {
    const { native, ringer } = await configured();
    native.answers['startCall'] = () =>
      Promise.reject(nativeRejection('server_refused', 'Busy.', { problemType: 'about:blank', status: '409' }));
    assert.equal((await rejectsWith(ringer.startCall('bob'), 'server_refused')).status, 409);
    native.answers['startCall'] = () => Promise.reject(nativeRejection('server_refused', 'Refused.'));
    const bare = await rejectsWith(ringer.startCall('bob'), 'server_refused');
    assert.equal(bare.problemType, null);
    assert.equal(bare.status, null);
  });

  test('a result of the wrong shape rejects native naming the field', async () => {
    const { native, ringer } = await configured();
    native.answers['getCalls'] = [
      { callId: ALICE_CALL, direction: 'incoming', peer: { id: 'a', name: null }, hasVideo: false, state: 'ringing', media: null },
      { callId: ALICE_CALL, direction: 'incoming', peer: { id: 'a', name: null }, hasVideo: false, state: 'gone', media: null },
    ];
    const error = await rejectsWith(ringer.getCalls(), 'native');
    assert.ok(error.message.includes('calls[1].state'), error.message);
  });

  test('a call answered before this JavaScript instance started carries its media, so the app can rejoin', async () => {
    const { native, ringer } = await configured();
    const media = { url: 'wss://media.example.com', token: 'm-1' };
    const active = { callId: ALICE_CALL.toUpperCase(), direction: 'incoming', peer: { id: 'alice', name: 'Alice' }, hasVideo: false, state: 'active', media };
    native.answers['getCalls'] = [active];
    assert.deepEqual(await ringer.getCalls(), [{ ...active, callId: ALICE_CALL, participants: null }]);
    const participants = [{ user: { id: 'bob', name: null }, state: 'accepted' }];
    native.answers['getCalls'] = [{ ...active, participants }];
    assert.deepEqual(await ringer.getCalls(), [{ ...active, callId: ALICE_CALL, participants }]);
    native.answers['getCalls'] = [{ ...active, media: { url: 'wss://media.example.com' } }];
    const error = await rejectsWith(ringer.getCalls(), 'native');
    assert.ok(error.message.includes('calls[0].media.token'), error.message);
    native.answers['getCalls'] = [{ ...active, media: undefined }];
    assert.ok((await rejectsWith(ringer.getCalls(), 'native')).message.includes('calls[0].media'));
  });

  test('a key added later (a Call\'s media) that an older native build leaves out reads as null; a wrong one still fails', async () => {
    // A JavaScript bundle newer than the native build (an over-the-air update, a stale development client): the
    // native half predates `media` and sends calls without the key (src/narrow.ts, "keys added later").
    const { native, ringer } = await configured();
    const older = { callId: ALICE_CALL.toUpperCase(), direction: 'incoming', peer: { id: 'alice', name: 'Alice' }, hasVideo: false, state: 'active' };
    native.answers['getCalls'] = [older];
    assert.deepEqual(await ringer.getCalls(), [{ ...older, callId: ALICE_CALL, media: null, participants: null }]);
    native.answers['configure'] = { ...STATE, calls: [older] };
    assert.deepEqual((await ringer.configure()).calls, [
      { ...older, callId: ALICE_CALL, media: null, participants: null },
    ]);
    native.answers['getCalls'] = [{ ...older, participants: 'bob' }];
    assert.ok((await rejectsWith(ringer.getCalls(), 'native')).message.includes('calls[0].participants'));

    // A key that is there is checked as always: a media of the wrong type is the native half's mistake.
    for (const media of ['wss://media.example.com', 42, [], { url: 'wss://media.example.com', token: 7 }]) {
      native.answers['getCalls'] = [{ ...older, media }];
      const error = await rejectsWith(ringer.getCalls(), 'native');
      assert.ok(error.message.includes('calls[0].media'), error.message);
    }
    // Only the keys added later are forgiven: a key of the first shape missing still fails.
    const stateless: { [key: string]: unknown } = { ...older };
    delete stateless['state'];
    native.answers['getCalls'] = [stateless];
    assert.ok((await rejectsWith(ringer.getCalls(), 'native')).message.includes('calls[0].state'));
  });

  test('results are narrowed and call ids lowercased', async () => {
    const { native, ringer } = await configured();
    const entry = {
      callId: ALICE_CALL.toUpperCase(),
      direction: 'incoming',
      peer: { id: 'alice', name: 'Alice' },
      hasVideo: true,
      startedAt: 1_700_000_000_000,
      answered: true,
      endedAt: 1_700_000_060_000,
      reason: 'remote_ended',
      serverReason: null,
    };
    native.answers['getCallHistory'] = [entry];
    assert.deepEqual(await ringer.getCallHistory(), [{ ...entry, callId: ALICE_CALL }]);
    native.answers['getReadiness'] = ['notifications_disabled'];
    assert.deepEqual(await ringer.getReadiness(), ['notifications_disabled']);
  });
});

describe('replay', () => {
  test('a listener added before configure gets the replayed events once, in order, then live ones', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [INCOMING, ACCEPTED];
    const seen = recorder(ringer);
    await ringer.configure();
    await settle();
    native.emit(ENDED);
    assert.deepEqual(seen, [INCOMING, ACCEPTED, ENDED]);
    await ringer.configure();
    await settle();
    assert.deepEqual(seen, [INCOMING, ACCEPTED, ENDED]);
  });

  test('listeners added after configure get the replay once; a later listener does not', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [INCOMING];
    await ringer.configure();
    const first = recorder(ringer);
    const second = recorder(ringer);
    await settle();
    const late = recorder(ringer);
    await settle();
    assert.deepEqual(first, [INCOMING]);
    assert.deepEqual(second, [INCOMING]);
    assert.deepEqual(late, []);
  });

  test('an incoming group call carries the push\'s group; an older native build\'s incoming reads group null', async () => {
    const { native, ringer } = setUp();
    const group = { count: 3, others: [{ id: 'bob', name: 'Bob' }, { id: 'dave', name: null }] };
    const { group: _omitted, ...older } = INCOMING;
    native.answers['getInitialEvents'] = [{ ...INCOMING, group }, older, { ...INCOMING, group: { count: 3 } }];
    const seen = recorder(ringer);
    await ringer.configure();
    await settle();
    // The malformed group (no `others`) never reaches the app.
    assert.deepEqual(seen, [{ ...INCOMING, group }, INCOMING]);
  });

  test('a waiting call says so; an older native build\'s incoming reads waiting false; a wrong one still fails', async () => {
    const { native, ringer } = setUp();
    const { waiting: _omitted, ...older } = INCOMING;
    native.answers['getInitialEvents'] = [{ ...INCOMING, waiting: true }, older, { ...INCOMING, waiting: 'yes' }];
    const seen = recorder(ringer);
    await ringer.configure();
    await settle();
    assert.deepEqual(seen, [{ ...INCOMING, waiting: true }, INCOMING]);
    assert.equal(ringer.getDiagnostics().malformedEvents, 1);
  });

  test('live events before the first listener are held and follow the replay', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [INCOMING];
    await ringer.configure();
    native.emit(ACCEPTED);
    const seen = recorder(ringer);
    await settle();
    assert.deepEqual(seen, [INCOMING, ACCEPTED]);
  });

  test('more live events than the hold keeps before the first listener: the oldest go, counted first', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [{ type: 'eventsDropped', count: 3 }, INCOMING];
    await ringer.configure();
    for (let i = 0; i < HOLD_CAPACITY + 2; i += 1) {
      native.emit(i % 2 === 0 ? LOST : { type: 'connectionChanged', status: 'restored' });
    }
    const seen = recorder(ringer);
    await settle();
    assert.equal(seen.length, 1 + 1 + HOLD_CAPACITY);
    assert.deepEqual(seen.slice(0, 3), [{ type: 'eventsDropped', count: 5 }, INCOMING, LOST]);
  });

  test('getInitialEvents takes the replay when called first; listeners then get only what follows', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [INCOMING, ACCEPTED];
    await ringer.configure();
    assert.deepEqual(await ringer.getInitialEvents(), [INCOMING, ACCEPTED]);
    assert.deepEqual(await ringer.getInitialEvents(), []);
    native.emit(LOST);
    const seen = recorder(ringer);
    await settle();
    assert.deepEqual(seen, [LOST]);
  });

  test('after listeners got the replay getInitialEvents answers nothing', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [INCOMING];
    const seen = recorder(ringer);
    await ringer.configure();
    await settle();
    assert.deepEqual(seen, [INCOMING]);
    assert.deepEqual(await ringer.getInitialEvents(), []);
  });

  test('the native subscription exists before the initial events are fetched', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = () => {
      native.emit(LOST);
      return [INCOMING];
    };
    await ringer.configure();
    const seen = recorder(ringer);
    await settle();
    assert.deepEqual(seen, [INCOMING, LOST]);
  });

  test('replayed events of an unknown type are dropped and counted', async () => {
    const { native, ringer } = setUp();
    native.answers['getInitialEvents'] = [{ type: 'transferred', callId: ALICE_CALL }, INCOMING, { type: 'incoming' }];
    const seen = recorder(ringer);
    await ringer.configure();
    await settle();
    assert.deepEqual(seen, [INCOMING]);
    assert.deepEqual(ringer.getDiagnostics(), { unknownEvents: 1, malformedEvents: 1 });
  });
});

describe('listeners', () => {
  test('all listeners share one native subscription, removed with the last listener', async () => {
    const { native, ringer } = await configured();
    const a = ringer.addListener(() => undefined);
    const b = ringer.addListener('ended', () => undefined);
    await settle();
    assert.equal(native.subscribeCount, 1);
    assert.equal(native.liveSubscriptions, 1);
    a.remove();
    assert.equal(native.liveSubscriptions, 1);
    b.remove();
    b.remove();
    assert.equal(native.liveSubscriptions, 0);
    const c = ringer.addListener(() => undefined);
    assert.equal(native.liveSubscriptions, 1);
    assert.equal(native.subscribeCount, 2);
    c.remove();
    assert.equal(native.liveSubscriptions, 0);
  });

  test('a typed listener gets only its type', async () => {
    const { native, ringer } = await configured();
    const ended: string[] = [];
    ringer.addListener('ended', (event) => ended.push(event.reason));
    await settle();
    native.emit(INCOMING);
    native.emit(ENDED);
    assert.deepEqual(ended, ['remote_ended']);
  });

  test('a listener that throws does not stop the others, and the error handler is told', async () => {
    const { native, ringer } = await configured();
    const reported: unknown[] = [];
    ringer.setListenerErrorHandler((error, event) => reported.push([error, event.type]));
    const boom = new Error('listener bug');
    const seen: string[] = [];
    ringer.addListener(() => {
      throw boom;
    });
    ringer.addListener((event) => seen.push(event.type));
    await settle();
    native.emit(INCOMING);
    native.emit(ENDED);
    assert.deepEqual(seen, ['incoming', 'ended']);
    assert.deepEqual(reported, [
      [boom, 'incoming'],
      [boom, 'ended'],
    ]);
  });

  test('unknown and malformed live events never reach listeners and never throw', async () => {
    const { native, ringer } = await configured();
    const seen = recorder(ringer);
    await settle();
    native.emit({ type: 'transferRequested', callId: ALICE_CALL });
    native.emit({ type: 'ringing', callId: 'not-a-uuid' });
    native.emit({ type: 'connectionChanged', status: 'sleeping' });
    native.emit({ callId: ALICE_CALL });
    native.emit({ type: 'ringing', callId: ALICE_CALL.toUpperCase() });
    assert.deepEqual(seen, [{ type: 'ringing', callId: ALICE_CALL }]);
    assert.deepEqual(ringer.getDiagnostics(), { unknownEvents: 1, malformedEvents: 3 });
  });

  test('events while no listener exists after the replay was handed over are not kept', async () => {
    const { native, ringer } = await configured();
    const first = ringer.addListener(() => undefined);
    await settle();
    first.remove();
    native.emit(INCOMING);
    const seen = recorder(ringer);
    await settle();
    native.emit(ENDED);
    assert.deepEqual(seen, [ENDED]);
  });
});
