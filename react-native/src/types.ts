// The public types of @ringer/react-native: what the native half tells JavaScript (events), what its methods
// answer (calls, history, state) and what the app passes in. Every shape here is checked at run time by
// src/narrow.ts before the app sees it; the codegen spec (src/NativeRinger.ts) carries them as plain objects.

/**
 * A call as the server names it: the server's call id, a lowercase UUID string such as
 * `"6f1d1c3e-3c55-4b1f-9d0a-1f6a3b1f7a01"`. JavaScript never sees CallKit's or Telecom's own ids.
 */
export type CallId = string;

/** Which side placed the call: `"incoming"` rang on this phone, `"outgoing"` was placed by it. */
export type CallDirection = 'incoming' | 'outgoing';

/** The other party of a call: the server's user id and, when the server knows one, a display name. */
export interface Party {
  readonly id: string;
  /** `null` when the server has no display name for this user. */
  readonly name: string | null;
}

/**
 * Where and how to join the call's media once it can start (the SDK's `mediaCanStart`): the media server's
 * URL and the access token for this call. The token is a secret for this call only; do not log it.
 */
export interface MediaGrant {
  readonly url: string;
  readonly token: string;
}

/**
 * The event stream's state, as the SDK reports it: `"connected"` first connection, `"lost"` dropped (the SDK
 * reconnects), `"restored"` back after a loss, `"closed"` closed on purpose (logout), `"replaced"` another
 * connection of the same device took over, `"unauthorized"` the server refused the token (log in again).
 */
export type ConnectionStatus = 'connected' | 'lost' | 'restored' | 'closed' | 'replaced' | 'unauthorized';

/**
 * An incoming group call as its ringing push described it: `count` everyone rung (this user included) and `others`
 * some of the others by name (at most 8), to show "Alice and 2 others" before the legs are known.
 */
export interface IncomingGroup {
  readonly count: number;
  readonly others: readonly Party[];
}

/** A call rings on this phone. The system call UI (CallKit or Telecom) already shows it when this arrives. */
export interface IncomingEvent {
  readonly type: 'incoming';
  readonly callId: CallId;
  readonly caller: Party;
  readonly hasVideo: boolean;
  /** A group call's count and some of the others (`participants` events follow with everyone); `null` for 1:1. */
  readonly group: IncomingGroup | null;
  /**
   * `true` when the call rang while this user was in another call (call waiting, the server's `--call-waiting` or the
   * caller's `callWaiting`): show it as a second call; answering it holds the first. `false` from a native build older
   * than call waiting.
   */
  readonly waiting: boolean;
}

/** `startCall` placed a call that is ringing the callee's devices (the server answered `ringing`). */
export interface OutgoingEvent {
  readonly type: 'outgoing';
  readonly callId: CallId;
  readonly callee: Party;
  readonly hasVideo: boolean;
}

/** The callee's phone rings: the first `call.ringing` the server sent for an outgoing call. */
export interface RingingEvent {
  readonly type: 'ringing';
  readonly callId: CallId;
}

/**
 * Start the media now: the call was answered (here, elsewhere through the system UI, or by the callee of an
 * outgoing call) and the SDK's `mediaCanStart` fired, which on iOS waits for CallKit's audio session.
 */
export interface AcceptedEvent {
  readonly type: 'accepted';
  readonly callId: CallId;
  readonly direction: CallDirection;
  readonly media: MediaGrant;
}

/**
 * The call is over on this phone. Sent only for calls JavaScript heard of (an `incoming` or `outgoing` came
 * first, now or in the replay).
 */
export interface EndedEvent {
  readonly type: 'ended';
  readonly callId: CallId;
  /** The SDK's end reason raw value (e.g. `"remote_ended"`), or `"local"` when this user ended the call. */
  readonly reason: string;
  /** The server's `end_reason`, else the final state it last reported (e.g. `"cancelled"`); `null` if none. */
  readonly serverReason: string | null;
}

/** The readiness pre-flight's problems changed; the same names `getReadiness()` answers. */
export interface ReadinessChangedEvent {
  readonly type: 'readinessChanged';
  readonly problems: readonly string[];
}

/** The event stream's state changed. */
export interface ConnectionChangedEvent {
  readonly type: 'connectionChanged';
  readonly status: ConnectionStatus;
}

/**
 * A request to the server failed for good after the SDK's retries (for example a decline the server never
 * took). `detail` says what failed; it never holds a token.
 */
export interface RequestFailedEvent {
  readonly type: 'requestFailed';
  readonly callId: CallId;
  readonly detail: string;
}

/**
 * Only ever the first event of a replay: the native buffer overflowed while JavaScript was away and this
 * many of the oldest events were dropped. Read `getCalls()` for the current state.
 */
export interface EventsDroppedEvent {
  readonly type: 'eventsDropped';
  readonly count: number;
}

/**
 * Where one person of a group call is, as the server says it: `"ringing"`, `"accepted"` (in the call), `"declined"`,
 * `"busy"`, `"failed"` (could not be reached), `"unanswered"`, `"cancelled"` (stopped ringing: the caller cancelled,
 * the call ended, or another callee answered first), `"left"`; a newer server may send a state this version does
 * not name, which is passed on as it is.
 */
export type ParticipantState =
  | 'ringing'
  | 'accepted'
  | 'declined'
  | 'busy'
  | 'failed'
  | 'unanswered'
  | 'cancelled'
  | 'left'
  | (string & { readonly __participantState?: never });

/** One person rung in a group call (a leg of the call, docs/call-lifecycle.md "Group calls"). */
export interface Participant {
  readonly user: Party;
  readonly state: ParticipantState;
}

/**
 * A group call's people changed: everyone rung, in the order rung, and where each is. Comes after the call's
 * `incoming` or `outgoing`, and never changes the call's own state on this phone.
 */
export interface ParticipantsEvent {
  readonly type: 'participants';
  readonly callId: CallId;
  readonly participants: readonly Participant[];
}

/**
 * A call was held (`held: true`: pause its media, both the other party's audio and the microphone) or resumed
 * (`false`), by the system (CallKit's Hold, "Hold & Accept" of another call, a SIM call on Android) or at the app's
 * `setHeld`. A held call stays answered; ending another call never resumes it.
 */
export interface HeldEvent {
  readonly type: 'held';
  readonly callId: CallId;
  readonly held: boolean;
}

/** The call's microphone was muted or unmuted, from the system's Mute button or the app's `setMuted`. */
export interface MutedEvent {
  readonly type: 'muted';
  readonly callId: CallId;
  readonly muted: boolean;
}

/**
 * Send these keypad tones in the call's media (RFC 4733 telephone events, or in-band): the user pressed them on the
 * system's keypad, or the app asked with `playDtmf`. Only the call that has the audio gets them.
 */
export interface DtmfEvent {
  readonly type: 'dtmf';
  readonly callId: CallId;
  /** One or more of `0`-`9`, `*`, `#`, `A`-`D`. */
  readonly digits: string;
}

/**
 * What kind of device an audio output is: `"earpiece"`, `"speaker"`, `"wired"` (a headset on a wire or USB),
 * `"bluetooth"`, `"car"` (CarPlay), `"other"` (AirPlay, HDMI, Android's streaming); a newer native build may name
 * one this version does not, which is passed on as it is.
 */
export type AudioRouteKind =
  | 'earpiece'
  | 'speaker'
  | 'wired'
  | 'bluetooth'
  | 'car'
  | 'other'
  | (string & { readonly __audioRouteKind?: never });

/** One place the calls' audio can go: `id` to pass to `setAudioRoute`, its kind and the system's name for it. */
export interface AudioOutput {
  readonly id: string;
  readonly route: AudioRouteKind;
  readonly name: string;
}

/** Where the calls' audio goes now (`current`, `null` when the system names none) and where it could. */
export interface AudioRoutes {
  readonly current: AudioOutput | null;
  readonly outputs: readonly AudioOutput[];
}

/**
 * The audio route or the outputs to choose from changed (a headset plugged in, the system's picker, the app's
 * `setAudioRoute` once the system moved the audio). About the phone, not one call.
 */
export interface AudioRouteChangedEvent extends AudioRoutes {
  readonly type: 'audioRouteChanged';
}

/**
 * The user tapped one of the app's calls in the phone's own call history (iOS Recents; Android 16's call log, for
 * calls shown through Core-Telecom: the plugin's `callUi: "core_telecom"`) and asks to call `userId` back. Nothing is
 * dialled: the app decides (`startCall(userId, { video: hasVideo })`, or a screen of its own first), as a tap in a
 * list is not consent to ring someone at once. A tap that launched the app arrives in the first replay. About no
 * call of this phone.
 */
export interface CallBackRequestedEvent {
  readonly type: 'callBackRequested';
  /** The other party of the call in the history: whom to call. */
  readonly userId: string;
  /** True when the user asked for a video call back. */
  readonly hasVideo: boolean;
}

/**
 * Everything the native half tells JavaScript, discriminated by `type`. Switch on `event.type`; an event of a
 * type this version does not know never reaches the app (it is counted in `getDiagnostics()`).
 */
export type RingerEvent =
  | IncomingEvent
  | OutgoingEvent
  | RingingEvent
  | AcceptedEvent
  | EndedEvent
  | ReadinessChangedEvent
  | ConnectionChangedEvent
  | RequestFailedEvent
  | EventsDroppedEvent
  | ParticipantsEvent
  | HeldEvent
  | MutedEvent
  | DtmfEvent
  | AudioRouteChangedEvent
  | CallBackRequestedEvent;

/** The `type` of a `RingerEvent`: `"incoming"`, `"accepted"`, ... */
export type RingerEventType = RingerEvent['type'];

/** The event of one type, e.g. `RingerEventOf<'accepted'>` is `AcceptedEvent`. */
export type RingerEventOf<T extends RingerEventType> = Extract<RingerEvent, { type: T }>;

/** A listener of every event. It is called synchronously, in order; it should not throw. */
export type RingerListener = (event: RingerEvent) => void;

/** What `addListener` returns: `remove()` stops that one listener (calling it twice is harmless). */
export interface Subscription {
  remove(): void;
}

/**
 * Where a call this phone has is now, from the SDK's call machine: `"ringing"` (either direction),
 * `"answering"` (answered here, the server has not confirmed yet), `"active"` (connected).
 */
export type CallState = 'ringing' | 'answering' | 'active';

/** A call up on this phone now (not ended), as `getCalls()` answers. */
export interface Call {
  readonly callId: CallId;
  readonly direction: CallDirection;
  readonly peer: Party;
  readonly hasVideo: boolean;
  readonly state: CallState;
  /**
   * The media of the call's `accepted` event once there was one, else `null`: a JavaScript instance that
   * starts during a call (a reload, `expo-updates`' `reloadAsync`) rejoins the media from here, since the
   * `accepted` event went to the instance before it. Also `null` from a native build older than this field (a
   * newer JavaScript bundle over an older app binary: src/narrow.ts, "keys added later").
   */
  readonly media: MediaGrant | null;
  /**
   * A group call's people and where each is, as this phone last heard (the `participants` events say each change);
   * `null` for a 1:1 call, and from a native build older than group calls.
   */
  readonly participants: readonly Participant[] | null;
}

/**
 * What `startCall` answers: the call as the server created it. `state` is the server's call state:
 * `"ringing"` when the callee's devices ring; `"busy"` or `"failed"` (or another final state) when nothing
 * rings, in which case no `outgoing` event follows.
 */
export interface PlacedCall {
  readonly callId: CallId;
  readonly direction: CallDirection;
  /** The callee; for a group call, the first one. */
  readonly peer: Party;
  readonly hasVideo: boolean;
  readonly state: string;
  /** `startGroupCall`'s answer: everyone rung, in order, and their states; `null` for a 1:1 call. */
  readonly participants: readonly Participant[] | null;
}

/**
 * What an answer does in a group call: `"first_answer"` (the default: the first callee to answer gets the call and
 * the others stop ringing at once) or `"all_may_join"` (each callee may join until their own ring time ends).
 */
export type AnswerPolicy = 'first_answer' | 'all_may_join';

/** `startGroupCall`'s options; `callWaiting` as `startCall`'s, for every callee. */
export interface StartGroupCallOptions {
  readonly video?: boolean;
  readonly callWaiting?: boolean;
  /** `"first_answer"` when left out. */
  readonly answerPolicy?: AnswerPolicy;
}

/**
 * One call that rang on or was placed from this phone, written natively when it ended; kept across launches
 * (at most 100, newest first).
 */
export interface HistoryEntry {
  readonly callId: CallId;
  readonly direction: CallDirection;
  readonly peer: Party;
  readonly hasVideo: boolean;
  /** When it started ringing, Unix time in milliseconds, by the phone's clock. */
  readonly startedAt: number;
  /** Whether anyone answered it (here or, for an outgoing call, the callee). */
  readonly answered: boolean;
  /** When it ended, Unix time in milliseconds, by the phone's clock. */
  readonly endedAt: number;
  /** As `EndedEvent.reason`. */
  readonly reason: string;
  /** As `EndedEvent.serverReason`. */
  readonly serverReason: string | null;
}

/**
 * One call of this user's history as the server keeps it (`GET /v1/calls`): as caller or callee, on any device, missed
 * ones included. Times are Unix milliseconds on the server's clock.
 */
export interface RecentCall {
  readonly callId: CallId;
  /** The server's call state: `"ringing"`, `"accepted"`, `"ended"`, `"declined"`, `"cancelled"`, `"unanswered"` (missed), `"busy"`, `"failed"`. */
  readonly state: string;
  readonly caller: Party;
  /** For a group call, the callee this user is, or (for its caller) the first rung. */
  readonly callee: Party;
  readonly hasVideo: boolean;
  readonly createdAt: number;
  readonly acceptedAt: number | null;
  readonly endedAt: number | null;
  /** Who ended it, `null` for a timeout, a failure or an end by the server. */
  readonly endedBy: string | null;
  /** Why the server ended an accepted call itself (`"connection_lost"`, `"max_duration"`, `"ended_by_backend"`), else `null`. */
  readonly endReason: string | null;
  /** Whether it rang its callee during another call. */
  readonly waiting: boolean;
  /** A group call's people and their states; `null` for a 1:1 call. */
  readonly participants: readonly Participant[] | null;
}

/** A page of `getRecentCalls`: newest first; `nextBefore` is the `before` of the next page, `null` on the last. */
export interface RecentCallsPage {
  readonly calls: readonly RecentCall[];
  readonly nextBefore: CallId | null;
}

/** `getRecentCalls`' options: `limit` 1 to 100 (the server's default, 50, when left out), `before` a page's `nextBefore`. */
export interface RecentCallsOptions {
  readonly limit?: number;
  readonly before?: CallId;
}

/** The platform the native half runs on. */
export type NativePlatform = 'ios' | 'android';

/** What `configure` answers: the native half's state at that moment. */
export interface NativeState {
  /** The server URL in use, or `null` when none is known yet. */
  readonly server: string | null;
  /** This installation's device id, as registered with the server. */
  readonly deviceId: string;
  readonly platform: NativePlatform;
  /** The logged-in user (natively kept across launches), or `null`. */
  readonly userId: string | null;
  /** The calls up now, as `getCalls()`. */
  readonly calls: readonly Call[];
  /** The readiness problems now, as `getReadiness()`. */
  readonly readiness: readonly string[];
}

/** What `login` answers: the user the token names. */
export interface LoginResult {
  readonly userId: string;
}

/**
 * The options of `configure`. `server` is the Ringer server's base URL (`https://…`; `http://` for a
 * development server). When given it is stored natively and used from the next cold start on, before any
 * JavaScript runs; when omitted or `null` the native default (Info.plist `RingerServerURL`, Android meta-data
 * `dev.ringer.server`, or a URL stored earlier) is used.
 */
export interface ConfigureOptions {
  readonly server?: string | null;
}

/**
 * The options of `startCall`. `video` (default `false`) asks the callee's phone to ring as a video call.
 * `callWaiting`: `true` rings a callee who is already in a call as a waiting call, `false` makes the call `busy` for
 * them; left out, the server's `--call-waiting` decides (off by default).
 */
export interface StartCallOptions {
  readonly video?: boolean;
  readonly callWaiting?: boolean;
}

/**
 * Counts of what the JavaScript layer dropped instead of passing to the app: events of a type it does not
 * know, and events whose fields did not match their type. Both stay 0 while the native and JavaScript halves
 * come from the same package version.
 */
export interface Diagnostics {
  readonly unknownEvents: number;
  readonly malformedEvents: number;
}

/**
 * What the Android Headless JS task after an answer receives (`Ringer.registerCallAnsweredTask`): the call that
 * was answered while no JavaScript was attached, and which side placed it. The media grant is not here (its
 * token is a secret that does not travel in an Android Intent): the `accepted` event that carries it comes in
 * the replay once the task's JavaScript calls `configure`.
 */
export interface CallAnsweredTaskData {
  readonly callId: CallId;
  readonly direction: CallDirection;
}

/**
 * The app's Headless JS task after an answer. A promise that resolves finishes the task at once; one that rejects
 * is reported (`console.error`) and the task is kept until its 30 s timeout (React Native 0.79's
 * AppRegistry.startHeadlessTask tells native code the task finished only on success).
 */
export type CallAnsweredTask = (data: CallAnsweredTaskData) => Promise<void>;
