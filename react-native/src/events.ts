// Listener bookkeeping and replay: one native subscription shared by every JavaScript listener, events
// narrowed once and handed to each listener in order, and the events from before JavaScript attached handed
// over exactly once.

import { narrowEvent } from './narrow';
import type { Diagnostics, RingerEvent, RingerEventType, Subscription } from './types';

/** Subscribes to the native `onEvent` emitter; the returned subscription's `remove()` ends it. */
export type NativeSubscribe = (handler: (payload: unknown) => void) => Subscription;

/** Told when a listener throws: the error and the event it was handling. */
export type ListenerErrorHandler = (error: unknown, event: RingerEvent) => void;

interface Entry {
  readonly type: RingerEventType | null;
  readonly listener: (event: RingerEvent) => void;
}

/**
 * How many events the JavaScript side holds while no listener has been added yet, like the native relay's
 * buffer (TestVectors/react-native/relay.json, capacity 200 in production). The oldest go first.
 */
export const HOLD_CAPACITY = 200;

/** React Native's global error reporter (types/modules/globals.d.ts: `ErrorUtils.getGlobalHandler()`). */
interface ErrorUtilsLike {
  getGlobalHandler(): (error: unknown, isFatal?: boolean) => void;
}

/**
 * The default for a listener that throws: report it as a non-fatal error through React Native's global
 * handler (a red box in development, a logged soft error in release), or, where there is none (Node), rethrow
 * it on a fresh stack. Either way the other listeners still get the event.
 */
export function reportListenerError(error: unknown): void {
  const errorUtils = (globalThis as { ErrorUtils?: ErrorUtilsLike }).ErrorUtils;
  if (errorUtils !== undefined) {
    errorUtils.getGlobalHandler()(error, false);
    return;
  }
  setTimeout(() => {
    throw error;
  }, 0);
}

/**
 * The event side of the client.
 *
 * Lifecycle: `attach()` (from `configure`, before the native `getInitialEvents`) subscribes natively and
 * starts holding; `deliverReplay(...)` stores the replayed events; the first time at least one listener is
 * present after that, the held events (replay first, then any live ones that came meanwhile) are handed to
 * every listener then present, in a microtask, so listeners added in the same synchronous block all get them.
 * From then on events go straight to the listeners. When the last listener is removed the native
 * subscription is removed too; events that come while no listener exists are not kept (read `getCalls()`).
 *
 * The replay is handed over once: to the listeners as above, or to `takeReplay()` (the public
 * `getInitialEvents()`) if that is called first, in which case listeners get only what came after.
 */
export class EventHub {
  private readonly entries = new Set<Entry>();
  private nativeSubscription: Subscription | null = null;
  private attached = false;
  private holding = false;
  private replay: RingerEvent[] | null = null;
  private replayTaken = false;
  private held: RingerEvent[] = [];
  private heldDropped = 0;
  private flushScheduled = false;
  private unknownEvents = 0;
  private malformedEvents = 0;
  private errorHandler: ListenerErrorHandler = reportListenerError;

  constructor(private readonly subscribe: NativeSubscribe) {}

  /** Subscribes natively (once per JavaScript instance) and holds live events until the replay is handed over. */
  attach(): void {
    if (this.attached) {
      return;
    }
    this.attached = true;
    this.holding = true;
    this.ensureNativeSubscription();
  }

  /** Stores the replayed events (native payloads, narrowed here) and hands them over if a listener waits. */
  deliverReplay(payloads: readonly unknown[]): void {
    if (this.replay !== null || this.replayTaken) {
      return;
    }
    this.replay = payloads.map((payload) => this.narrow(payload)).filter(isEvent);
    this.scheduleFlush();
  }

  /** The replay, once: `[]` when it already went to listeners or to an earlier call. */
  takeReplay(): RingerEvent[] {
    if (this.replay === null || this.replayTaken) {
      return [];
    }
    const replay = this.replay;
    this.replayTaken = true;
    this.replay = [];
    return [...replay];
  }

  /** Adds a listener of every event (`type` null) or of one type. */
  add(type: RingerEventType | null, listener: (event: RingerEvent) => void): Subscription {
    const entry: Entry = { type, listener };
    this.entries.add(entry);
    if (this.attached) {
      this.ensureNativeSubscription();
    }
    this.scheduleFlush();
    let removed = false;
    return {
      remove: () => {
        if (removed) {
          return;
        }
        removed = true;
        this.entries.delete(entry);
        if (this.entries.size === 0 && !this.holding && this.nativeSubscription !== null) {
          const subscription = this.nativeSubscription;
          this.nativeSubscription = null;
          subscription.remove();
        }
      },
    };
  }

  /** Replaces the handler told when a listener throws; `null` restores the default (`reportListenerError`). */
  setErrorHandler(handler: ListenerErrorHandler | null): void {
    this.errorHandler = handler ?? reportListenerError;
  }

  /** How many native events were dropped as unknown or malformed. */
  diagnostics(): Diagnostics {
    return { unknownEvents: this.unknownEvents, malformedEvents: this.malformedEvents };
  }

  /** How many JavaScript listeners there are (for tests and diagnostics). */
  listenerCount(): number {
    return this.entries.size;
  }

  /** Whether the one native subscription exists now. */
  isSubscribedNatively(): boolean {
    return this.nativeSubscription !== null;
  }

  private ensureNativeSubscription(): void {
    if (this.nativeSubscription === null) {
      this.nativeSubscription = this.subscribe((payload) => this.receive(payload));
    }
  }

  private receive(payload: unknown): void {
    const event = this.narrow(payload);
    if (event === null) {
      return;
    }
    if (this.holding) {
      this.hold(event);
    } else {
      this.dispatch(event);
    }
  }

  private hold(event: RingerEvent): void {
    this.held.push(event);
    if (this.held.length > HOLD_CAPACITY) {
      this.held.shift();
      this.heldDropped += 1;
    }
  }

  private narrow(payload: unknown): RingerEvent | null {
    const narrowed = narrowEvent(payload);
    switch (narrowed.kind) {
      case 'event':
        return narrowed.event;
      case 'unknown':
        this.unknownEvents += 1;
        return null;
      case 'malformed':
        this.malformedEvents += 1;
        return null;
    }
  }

  private scheduleFlush(): void {
    if (!this.holding || this.replay === null || this.entries.size === 0 || this.flushScheduled) {
      return;
    }
    this.flushScheduled = true;
    void Promise.resolve().then(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (!this.holding || this.entries.size === 0) {
      return;
    }
    const events = withDropCount([...(this.replay ?? []), ...this.held], this.heldDropped);
    this.holding = false;
    this.replay = [];
    this.replayTaken = true;
    this.held = [];
    this.heldDropped = 0;
    for (const event of events) {
      this.dispatch(event);
    }
  }

  private dispatch(event: RingerEvent): void {
    for (const entry of [...this.entries]) {
      if (entry.type !== null && entry.type !== event.type) {
        continue;
      }
      try {
        entry.listener(event);
      } catch (error) {
        this.errorHandler(error, event);
      }
    }
  }
}

function isEvent(event: RingerEvent | null): event is RingerEvent {
  return event !== null;
}

/**
 * Puts the count of events dropped from the JavaScript hold into the leading `eventsDropped` (adding to the
 * native relay's, which is only ever first), so the app still sees one such event, first.
 */
function withDropCount(events: RingerEvent[], dropped: number): RingerEvent[] {
  if (dropped === 0) {
    return events;
  }
  const first = events[0];
  if (first !== undefined && first.type === 'eventsDropped') {
    return [{ type: 'eventsDropped', count: first.count + dropped }, ...events.slice(1)];
  }
  return [{ type: 'eventsDropped', count: dropped }, ...events];
}
