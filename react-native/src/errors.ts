// RingerError: the one error type every promise of the package rejects with, and the mapping from what React
// Native hands JavaScript when native code rejects a promise.

/**
 * Why a call failed:
 * - `not_configured`: `configure` has not resolved yet, or no server URL is known at all.
 * - `invalid_argument`: an argument the package refuses (checked in JavaScript first, again natively).
 * - `unknown_call`: a well-formed call id this phone has no call for.
 * - `wrong_state`: the call is not in a state that allows it (e.g. `decline` after answering).
 * - `not_logged_in`, `other_user_logged_in` (log out first), `call_in_progress` (hang up first).
 * - `server_refused`: the server answered with a problem; see `problemType` and `status`.
 * - `network`: the server could not be reached.
 * - `call_ui_refused`: CallKit or Telecom refused the request.
 * - `native`: anything else, including a rejection code this version does not know (kept in `nativeCode`).
 */
export type RingerErrorCode =
  | 'not_configured'
  | 'invalid_argument'
  | 'unknown_call'
  | 'wrong_state'
  | 'not_logged_in'
  | 'other_user_logged_in'
  | 'call_in_progress'
  | 'server_refused'
  | 'network'
  | 'call_ui_refused'
  | 'native';

const KNOWN_CODES: readonly RingerErrorCode[] = [
  'not_configured',
  'invalid_argument',
  'unknown_call',
  'wrong_state',
  'not_logged_in',
  'other_user_logged_in',
  'call_in_progress',
  'server_refused',
  'network',
  'call_ui_refused',
  'native',
];

/** The extra fields a `RingerError` may carry. */
export interface RingerErrorDetails {
  /** For `server_refused`: the problem+json `type` the server answered, e.g. `"https://ringer.dev/problems/busy"`. */
  readonly problemType?: string | null;
  /** For `server_refused`: the HTTP status. */
  readonly status?: number | null;
  /** For `native`: the rejection code native code gave, when it was not one of `RingerErrorCode`. */
  readonly nativeCode?: string | null;
}

/**
 * The error every Ringer promise rejects with. Check `code`, e.g.
 * `if (e instanceof RingerError && e.code === 'other_user_logged_in') await Ringer.logout()`.
 */
export class RingerError extends Error {
  /** Why it failed; see `RingerErrorCode`. */
  readonly code: RingerErrorCode;
  /** The server's problem type for `server_refused`, else `null`. */
  readonly problemType: string | null;
  /** The HTTP status for `server_refused`, else `null`. */
  readonly status: number | null;
  /** The raw native rejection code when `code` is `native` because the code was unknown, else `null`. */
  readonly nativeCode: string | null;

  constructor(code: RingerErrorCode, message: string, details: RingerErrorDetails = {}) {
    super(message);
    // Keeps `instanceof` working where `Error` subclassing is compiled down (Babel's loose class transform).
    Object.setPrototypeOf(this, new.target.prototype);
    this.name = 'RingerError';
    this.code = code;
    this.problemType = details.problemType ?? null;
    this.status = details.status ?? null;
    this.nativeCode = details.nativeCode ?? null;
  }
}

function isRecord(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null;
}

function numberOrNull(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return value;
  }
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    return Number(value);
  }
  return null;
}

/**
 * Turns whatever a native call threw into a `RingerError`.
 *
 * React Native delivers a native `reject(code, message, userInfo)` as a JavaScript `Error` whose own
 * properties are copied from the native error details: `code` (string), `message`, `userInfo` (an object or
 * `null`) and `nativeStackIOS` / `nativeStackAndroid`. On iOS the new architecture builds them with
 * `RCTJSErrorFromCodeMessageAndNSError` and `convertJSErrorDetailsToJSRuntimeError`
 * (`ObjCTurboModule::createPromise` in RCTTurboModule.mm): `userInfo` is the `NSError`'s userInfo. On Android `PromiseImpl.reject` fills a map with the keys `code`, `message`, `userInfo`,
 * `nativeStackAndroid`. Ringer's native halves put `problemType` and `status` in `userInfo` for
 * `server_refused`.
 */
export function toRingerError(thrown: unknown): RingerError {
  if (thrown instanceof RingerError) {
    return thrown;
  }
  const record = isRecord(thrown) ? thrown : {};
  const rawCode = typeof record['code'] === 'string' ? record['code'] : null;
  const rawMessage = record['message'];
  const message = typeof rawMessage === 'string' && rawMessage.length > 0 ? rawMessage : 'The native module failed.';
  const known = rawCode !== null && (KNOWN_CODES as readonly string[]).includes(rawCode);
  const code: RingerErrorCode = known ? (rawCode as RingerErrorCode) : 'native';
  if (code === 'server_refused') {
    const userInfo = isRecord(record['userInfo']) ? record['userInfo'] : {};
    const problemType = userInfo['problemType'];
    return new RingerError(code, message, {
      problemType: typeof problemType === 'string' ? problemType : null,
      status: numberOrNull(userInfo['status']),
    });
  }
  return new RingerError(code, message, { nativeCode: known ? null : rawCode });
}

/** A `RingerError` with code `invalid_argument`, thrown by the checks before anything reaches native code. */
export function invalidArgument(message: string): RingerError {
  return new RingerError('invalid_argument', message);
}
