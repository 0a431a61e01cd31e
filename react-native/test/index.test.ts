// The package's entry point as an app loads it, over a fake `react-native` (test/fakes/resolve.ts): the
// TurboModule it asks for is `Ringer`, and the exported `Ringer` works end to end against it.

import './fakes/resolve';
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALICE_CALL, settle } from './fakes/fakeNative';
import { native, requested } from './fakes/reactNative';
import DefaultRinger, { CALL_ANSWERED_TASK, Ringer, RingerError, isCallId } from '../src/index';
import type { RingerEvent } from '../src/index';

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
