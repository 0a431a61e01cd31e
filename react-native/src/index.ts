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

import { AppRegistry } from 'react-native';
import { createRinger } from './client';
import type { RingerClient } from './client';
import { registerCallAnsweredTask } from './headless';
import NativeRinger from './NativeRinger';
import type { CallAnsweredTask } from './types';

/** The Ringer API, and Android's Headless JS task after an answer. */
export interface RingerApi extends RingerClient {
  /**
   * Android: registers `task` as the Headless JS task `RingerCallAnswered` (`CALL_ANSWERED_TASK`), which the
   * native half starts after a call was answered while no JavaScript instance was attached (a killed app
   * answered on the lock screen, say), never on the ringing path and never before the answer is through. Call it
   * in the app's index.js, beside `AppRegistry.registerComponent`, and also turn it on natively: the Expo
   * plugin's `headlessTaskAfterAnswer: true`, or in a bare app's AndroidManifest.xml
   * `<meta-data android:name="dev.ringer.headless_task_after_answer" android:value="true"/>` (native code cannot
   * see what JavaScript registered).
   *
   * The task gets `{callId, direction}` only. The media grant is not passed (its token is a secret, and an
   * Android Intent is no place for one): the `accepted` event carrying it is in the replay, so a task that
   * needs it calls `await Ringer.configure()` and then `Ringer.getInitialEvents()` or adds a listener.
   *
   * How the task ends is React Native's (Libraries/ReactNative/AppRegistry.js `startHeadlessTask`, v0.79.0): a
   * promise that resolves finishes the task at once (`notifyTaskFinished`); one that rejects is reported with
   * `console.error` and the task is kept until its 30-second timeout, since native code is told it finished only on
   * success (a rejection with React Native's `HeadlessJsTaskError` asks for a retry instead, which this task's
   * configuration, without a retry policy, refuses, and that finishes it). So let the promise resolve once the
   * work is done, and catch what may fail. iOS never starts it: an app a VoIP push launches runs its JavaScript
   * anyway.
   * @throws RingerError `invalid_argument` when `task` is not a function.
   */
  registerCallAnsweredTask(task: CallAnsweredTask): void;
}

/**
 * The Ringer API over the `Ringer` TurboModule (new architecture only). Its methods are plain functions, so
 * `const { answer } = Ringer` works.
 */
export const Ringer: RingerApi = {
  ...createRinger(() => NativeRinger),
  registerCallAnsweredTask(task: CallAnsweredTask): void {
    // AppRegistry's method reads `this`: call it on AppRegistry, never detached.
    registerCallAnsweredTask((taskKey, taskProvider) => AppRegistry.registerHeadlessTask(taskKey, taskProvider), task);
  },
};

export default Ringer;

export { CALL_ANSWERED_TASK } from './headless';
export type { RingerClient } from './client';
export type { ListenerErrorHandler } from './events';
export { RingerError } from './errors';
export type { RingerErrorCode, RingerErrorDetails } from './errors';
export { isCallId } from './validate';
export type {
  AcceptedEvent,
  AudioOutput,
  AudioRouteChangedEvent,
  AudioRouteKind,
  AudioRoutes,
  Call,
  CallBackRequestedEvent,
  AnswerPolicy,
  CallAnsweredTask,
  CallAnsweredTaskData,
  CallDirection,
  CallId,
  CallState,
  ConfigureOptions,
  ConnectionChangedEvent,
  ConnectionStatus,
  Diagnostics,
  DtmfEvent,
  EndedEvent,
  EventsDroppedEvent,
  HeldEvent,
  HistoryEntry,
  IncomingEvent,
  IncomingGroup,
  LoginResult,
  MediaGrant,
  MutedEvent,
  NativePlatform,
  NativeState,
  OutgoingEvent,
  Participant,
  ParticipantState,
  ParticipantsEvent,
  Party,
  PlacedCall,
  ReadinessChangedEvent,
  RecentCall,
  RecentCallsOptions,
  RecentCallsPage,
  RequestFailedEvent,
  RingerEvent,
  RingerEventOf,
  RingerEventType,
  RingerListener,
  RingingEvent,
  StartCallOptions,
  StartGroupCallOptions,
  Subscription,
} from './types';
