// Argument checks made in JavaScript before anything reaches native code, so that a wrong argument is a
// typed `invalid_argument` at the call site (the native halves check again and never crash on any input).

import { invalidArgument } from './errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID string in any letter case: the shape of a server call id. */
export function isCallId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * The call id as the server spells it (lowercase).
 * @throws RingerError `invalid_argument` when `value` is not a UUID string.
 */
export function callIdArgument(value: unknown): string {
  if (!isCallId(value)) {
    throw invalidArgument('callId must be the server call id, a UUID string.');
  }
  return value.toLowerCase();
}

/**
 * A string that is not empty and not only white space, returned unchanged.
 * @throws RingerError `invalid_argument` naming `name` (never echoing the value, which may be a token).
 */
export function nonEmptyStringArgument(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw invalidArgument(`${name} must be a non-empty string.`);
  }
  return value;
}

/**
 * The server URL for `configure`: `null` when not given, else an `http://` or `https://` URL with a host.
 * @throws RingerError `invalid_argument` for anything else.
 */
export function serverArgument(value: unknown): string | null {
  if (value === undefined || value === null) {
    return null;
  }
  if (typeof value !== 'string' || !/^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i.test(value)) {
    throw invalidArgument('server must be an http:// or https:// URL.');
  }
  return value;
}

/** The largest history `getCallHistory` can answer: the native halves keep at most 100 entries. */
export const MAX_HISTORY = 100;

/**
 * The history limit: a whole number from 1 to `MAX_HISTORY`, `MAX_HISTORY` when not given.
 * @throws RingerError `invalid_argument` for anything else.
 */
export function historyLimitArgument(value: unknown): number {
  if (value === undefined) {
    return MAX_HISTORY;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_HISTORY) {
    throw invalidArgument(`limit must be a whole number from 1 to ${MAX_HISTORY}.`);
  }
  return value;
}

/**
 * A required boolean argument, returned unchanged.
 * @throws RingerError `invalid_argument` naming `name` when it is not a boolean.
 */
export function booleanArgument(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') {
    throw invalidArgument(`${name} must be a boolean.`);
  }
  return value;
}

/** The keypad keys a call may play (RFC 4733's sixteen), 1 to 64 of them. */
const DTMF = /^[0-9*#A-D]{1,64}$/;

/**
 * Keypad tones for `playDtmf`: 1 to 64 of `0`-`9`, `*`, `#`, `A`-`D` (uppercase, as the native halves take them).
 * @throws RingerError `invalid_argument` for anything else.
 */
export function dtmfArgument(value: unknown): string {
  if (typeof value !== 'string' || !DTMF.test(value)) {
    throw invalidArgument('digits must be 1 to 64 of 0-9, *, #, A-D.');
  }
  return value;
}

/**
 * An optional boolean option, `fallback` when not given.
 * @throws RingerError `invalid_argument` when given and not a boolean.
 */
export function booleanOption(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) {
    return fallback;
  }
  if (typeof value !== 'boolean') {
    throw invalidArgument(`${name} must be a boolean.`);
  }
  return value;
}

/**
 * An options object (or nothing, which counts as `{}`).
 * @throws RingerError `invalid_argument` for a non-object.
 */
export function optionsArgument(value: unknown, name: string): { readonly [key: string]: unknown } {
  if (value === undefined || value === null) {
    return {};
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(`${name} must be an object.`);
  }
  return value as { readonly [key: string]: unknown };
}
