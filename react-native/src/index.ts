// @ringer/react-native: ringing for React Native apps, native first. The native halves start with the app,
// report calls to CallKit / Telecom and answer them whether or not JavaScript runs; this module is how
// JavaScript is told what happened and asks for what it wants.
//
//   import { Ringer } from '@ringer/react-native';
//
//   Ringer.addListener((event) => {
//     if (event.type === 'accepted') joinMedia(event.media.url, event.media.token);
//   });
//   await Ringer.configure({ server: 'https://ringer.example.com' });
//   await Ringer.login(userToken);

import { createRinger } from './client';
import type { RingerClient } from './client';
import NativeRinger from './NativeRinger';

/**
 * The Ringer API over the `Ringer` TurboModule (new architecture only). Its methods are plain functions, so
 * `const { answer } = Ringer` works.
 */
export const Ringer: RingerClient = createRinger(() => NativeRinger);

/**
 * The Headless JS task name the Android half starts after a call was answered while no JavaScript ran, only
 * when the app registered a task under it: `AppRegistry.registerHeadlessTask(CALL_ANSWERED_TASK, () => task)`.
 * Nothing on the ringing path waits for it; iOS has no such task.
 */
export const CALL_ANSWERED_TASK = 'RingerCallAnswered';

export default Ringer;

export type { RingerClient } from './client';
export type { ListenerErrorHandler } from './events';
export { RingerError } from './errors';
export type { RingerErrorCode, RingerErrorDetails } from './errors';
export { isCallId } from './validate';
export type {
  AcceptedEvent,
  Call,
  CallDirection,
  CallId,
  CallState,
  ConfigureOptions,
  ConnectionChangedEvent,
  ConnectionStatus,
  Diagnostics,
  EndedEvent,
  EventsDroppedEvent,
  HistoryEntry,
  IncomingEvent,
  LoginResult,
  MediaGrant,
  NativePlatform,
  NativeState,
  OutgoingEvent,
  Party,
  PlacedCall,
  ReadinessChangedEvent,
  RequestFailedEvent,
  RingerEvent,
  RingerEventOf,
  RingerEventType,
  RingerListener,
  RingingEvent,
  StartCallOptions,
  Subscription,
} from './types';
