// The package's entry point as an app loads it, over a fake `react-native` (test/fakes/resolve.ts): the
// TurboModule it asks for is `Ringer`, and the exported `Ringer` works end to end against it.

import './fakes/resolve';
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALICE_CALL, settle } from './fakes/fakeNative';
import { headlessTasks, native, requested } from './fakes/reactNative';
import DefaultRinger, { CALL_ANSWERED_TASK, Ringer, RingerError, isCallId } from '../src/index';
import type { CallAnsweredTaskData, RingerEvent } from '../src/index';

test('the entry point asks React Native for the TurboModule named Ringer', () => {
  assert.deepEqual(requested, ['Ringer']);
  assert.equal(DefaultRinger, Ringer);
  assert.equal(CALL_ANSWERED_TASK, 'RingerCallAnswered');
  assert.equal(isCallId(ALICE_CALL), true);
});

test('Ringer runs over the registered module: configure, replay, a method, an error', async () => {
  native.answers['getInitialEvents'] = [{ type: 'ringing', callId: ALICE_CALL }];
  const seen: RingerEvent[] = [];
  const subscription = Ringer.addListener((event) => seen.push(event));
  const state = await Ringer.configure({ server: 'https://ringer.example.com' });
  await settle();
  assert.equal(state.deviceId, 'device-1');
  assert.deepEqual(seen, [{ type: 'ringing', callId: ALICE_CALL }]);
  await assert.rejects(Ringer.answer('nope'), RingerError);
  subscription.remove();
  assert.equal(native.liveSubscriptions, 0);
});

test('registerCallAnsweredTask registers the task RingerCallAnswered, which gets {callId, direction}', async () => {
  const seen: CallAnsweredTaskData[] = [];
  Ringer.registerCallAnsweredTask(async (data) => {
    seen.push(data);
  });
  const provider = headlessTasks.get(CALL_ANSWERED_TASK);
  assert.ok(provider !== undefined);
  await provider()({ callId: ALICE_CALL.toUpperCase(), direction: 'incoming' });
  assert.deepEqual(seen, [{ callId: ALICE_CALL, direction: 'incoming' }]);

  await assert.rejects(provider()({ callId: 'nope', direction: 'incoming' }), { code: 'native' });
  await assert.rejects(provider()({ callId: ALICE_CALL, direction: 'sideways' }), { code: 'native' });
  await assert.rejects(provider()(undefined), { code: 'native' });
  assert.equal(seen.length, 1);

  const { registerCallAnsweredTask } = Ringer;
  assert.throws(() => registerCallAnsweredTask(null as unknown as () => Promise<void>), { code: 'invalid_argument' });
});
