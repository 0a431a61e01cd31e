// Every event the shared vectors say the native halves send (TestVectors/react-native: the translation's
// `events`, the relay's inputs, `emitted` and `replayed`) passes the JavaScript narrowing unchanged, so the
// JavaScript layer accepts exactly what both native halves are pinned to produce.

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EVENT_TYPES, narrowEvent } from '../src/narrow';

const VECTORS = join(__dirname, '..', '..', '..', 'TestVectors', 'react-native');

interface Case {
  readonly description: string;
  readonly steps: readonly { readonly [key: string]: unknown }[];
}

function cases(file: string): readonly Case[] {
  const parsed = JSON.parse(readFileSync(join(VECTORS, file), 'utf8')) as { readonly cases: readonly Case[] };
  return parsed.cases;
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function assertNarrowsUnchanged(events: readonly unknown[], where: string): number {
  for (const event of events) {
    const narrowed = narrowEvent(event);
    assert.equal(narrowed.kind, 'event', `${where}: ${JSON.stringify(event)} was ${narrowed.kind}`);
    if (narrowed.kind === 'event') {
      assert.deepEqual(narrowed.event, event, where);
    }
  }
  return events.length;
}

describe('TestVectors/react-native', () => {
  test('events.json: every translated event narrows unchanged', () => {
    let checked = 0;
    for (const vector of cases('events.json')) {
      for (const step of vector.steps) {
        checked += assertNarrowsUnchanged(list(step['events']), vector.description);
      }
    }
    assert.ok(checked > 0, 'no events checked');
  });

  test('relay.json: every input, emitted and replayed event narrows unchanged', () => {
    let checked = 0;
    for (const vector of cases('relay.json')) {
      for (const step of vector.steps) {
        const input = step['input'] as { readonly type?: unknown; readonly event?: unknown } | undefined;
        if (input?.type === 'event') {
          checked += assertNarrowsUnchanged([input.event], vector.description);
        }
        checked += assertNarrowsUnchanged(list(step['emitted']), vector.description);
        checked += assertNarrowsUnchanged(list(step['replayed']), vector.description);
      }
    }
    assert.ok(checked > 0, 'no events checked');
  });

  test('every event type of the union appears in the vectors', () => {
    const seen = new Set<string>();
    for (const file of ['events.json', 'relay.json']) {
      for (const vector of cases(file)) {
        for (const step of vector.steps) {
          const input = step['input'] as { readonly event?: { readonly type?: unknown } } | undefined;
          const events = [...list(step['events']), ...list(step['emitted']), ...list(step['replayed']), input?.event];
          for (const event of events) {
            const type = (event as { readonly type?: unknown } | undefined)?.type;
            if (typeof type === 'string') {
              seen.add(type);
            }
          }
        }
      }
    }
    assert.deepEqual([...seen].sort(), [...EVENT_TYPES].sort());
  });
});
