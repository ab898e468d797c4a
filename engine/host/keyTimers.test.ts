import { describe, expect, it } from 'vitest';
import { keyGroupOf } from '../graph/keyGroups.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { encodeKey, StateTag, stateSpace } from '../state/stateKeys.js';
import { TimerStore } from '../state/timerStore.js';
import { TIMERS_READ, TIMERS_SHOWN } from './keyTimers.js';
import { readStatePage } from './stateBrowser.js';

const MAX_PARALLELISM = 128;
const ALL = { start: 0, end: MAX_PARALLELISM - 1 };
const NOON = Date.UTC(2024, 2, 1, 12);

/** A store with a "count" value for each key, and the timers given. */
function storeWith(
  keys: readonly unknown[],
  timers: readonly (readonly [unknown, 'eventTime' | 'processingTime', number])[],
) {
  const store = new MemoryKvStore();
  for (const key of keys) {
    const group = keyGroupOf(key, MAX_PARALLELISM);
    store.put(stateSpace(group, StateTag.Value, 'count'), encodeKey(key), store.codec.encode('count', 1));
  }
  const timerStore = new TimerStore(store, MAX_PARALLELISM);
  for (const [key, domain, timestamp] of timers) {
    timerStore.register(domain, keyGroupOf(key, MAX_PARALLELISM), encodeKey(key), timestamp);
  }
  return store;
}

describe("a state page's timers", () => {
  it("lists each key's timers, event time first and each domain in time order, and no key without", async () => {
    const store = storeWith(
      ['o1', 'o2', 'o3', { id: 7 }],
      [
        ['o1', 'eventTime', NOON + 10_000],
        ['o1', 'processingTime', NOON + 1],
        ['o1', 'eventTime', NOON + 5_000],
        ['o3', 'eventTime', -2000],
        [{ id: 7 }, 'eventTime', NOON],
      ],
    );
    const page = await readStatePage(await store.browse(), ALL, { limit: 50 });
    // Keys other than strings are written as JSON after "\x01", so they come first.
    expect(page.entries.map((e) => e.key)).toEqual([{ id: 7 }, 'o1', 'o2', 'o3']);
    expect(page.timers).toEqual([
      { key: { id: 7 }, count: 1, timers: [{ domain: 'eventTime', timestamp: NOON }] },
      {
        key: 'o1',
        count: 3,
        timers: [
          { domain: 'eventTime', timestamp: NOON + 5_000 },
          { domain: 'eventTime', timestamp: NOON + 10_000 },
          { domain: 'processingTime', timestamp: NOON + 1 },
        ],
      },
      { key: 'o3', count: 1, timers: [{ domain: 'eventTime', timestamp: -2000 }] },
    ]);
  });

  it('lists only the timers of the keys on the page', async () => {
    const keys = ['a', 'b', 'c', 'd'];
    const store = storeWith(
      keys,
      keys.map((key, k) => [key, 'eventTime', NOON + k] as const),
    );
    const page = await readStatePage(await store.browse(), ALL, { limit: 2 });
    expect(page.entries.map((e) => e.key)).toEqual(['a', 'b']);
    expect(page.timers?.map((t) => t.key)).toEqual(['a', 'b']);
    const none = await readStatePage(await storeWith(keys, []).browse(), ALL, { limit: 2 });
    expect(none).not.toHaveProperty('timers');
  });

  it('shows the first timers of a key with many and counts them all', async () => {
    const many = Array.from({ length: 25 }, (_, k) => ['o1', 'eventTime', NOON + k * 1000] as const);
    const page = await readStatePage(await storeWith(['o1'], many).browse(), ALL, { limit: 50 });
    const [timers] = page.timers ?? [];
    expect(timers?.count).toBe(25);
    expect(timers?.timers.map((t) => t.timestamp)).toEqual(many.slice(0, TIMERS_SHOWN).map(([, , ts]) => ts));
    expect(timers).not.toHaveProperty('atLeast');
  });

  it('says a count may be short when its key group holds more timers than a page reads', async () => {
    // Keys of one key group, so that their timers share its space.
    const group = keyGroupOf('o1', MAX_PARALLELISM);
    const sameGroup: string[] = [];
    for (let k = 0; sameGroup.length < 3; k++) {
      if (keyGroupOf(`k${k}`, MAX_PARALLELISM) === group) sameGroup.push(`k${k}`);
    }
    const [first, second, third] = sameGroup as [string, string, string];
    const timers = [
      ...Array.from({ length: TIMERS_READ }, (_, k) => [first, 'eventTime', k] as const),
      [second, 'eventTime', TIMERS_READ + 1] as const,
      [third, 'eventTime', -1] as const,
    ];
    const page = await readStatePage(await storeWith(sameGroup, timers).browse(), ALL, { limit: 50 });
    expect(page.timers?.map((t) => [t.key, t.count, t.atLeast])).toEqual([
      [first, TIMERS_READ - 1, true],
      [third, 1, true],
    ]);
  });
});
