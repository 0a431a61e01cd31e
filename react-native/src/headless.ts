// Android's Headless JS task after an answer: the app opts in twice, in JavaScript (registerCallAnsweredTask in
// its index.js, so the task exists in a React instance the service starts) and in the manifest (meta-data
// `dev.ringer.headless_task_after_answer`, which the Expo plugin writes with `headlessTaskAfterAnswer: true`),
// because native code cannot see what JavaScript registered. The native half starts the task only after an
// answer that no attached JavaScript instance took; nothing on the ringing path waits for it.

import { invalidArgument } from './errors';
import { narrowCallAnsweredTaskData } from './narrow';
import type { CallAnsweredTask } from './types';

/**
 * The Headless JS task name the Android half starts (RingerHeadlessTaskService.TASK_NAME in
 * react-native/android): the name `registerCallAnsweredTask` registers the app's task under.
 */
export const CALL_ANSWERED_TASK = 'RingerCallAnswered';

/** React Native's `AppRegistry.registerHeadlessTask` (types/react-native.d.ts), passed in so tests can watch it. */
export type RegisterHeadlessTask = (taskKey: string, taskProvider: () => (taskData: unknown) => Promise<void>) => void;

/**
 * Registers `task` as the Headless JS task `RingerCallAnswered`. The data Android hands it is checked first;
 * data that is not `{callId, direction}` rejects the task's promise with a `RingerError` `native`. React Native
 * 0.79's AppRegistry.startHeadlessTask finishes the task when that promise resolves; a rejection is reported and
 * the task kept until its 30 s timeout (RingerHeadlessTaskService.TIMEOUT_MS).
 * @throws RingerError `invalid_argument` when `task` is not a function.
 */
export function registerCallAnsweredTask(register: RegisterHeadlessTask, task: CallAnsweredTask): void {
  if (typeof task !== 'function') {
    throw invalidArgument('task must be a function.');
  }
  register(CALL_ANSWERED_TASK, () => async (taskData: unknown) => task(narrowCallAnsweredTaskData(taskData)));
}
