// Counting a subtask's keys by reading its store: a key that holds several states (a value, a
// map, a list) counts once, a map or list emptied again not at all; per state, the keys that hold
// it and its entries (each element of a map or list one). Checked against a count kept beside
// the writes, over spaces longer than one chunk read and keys spread over many key groups.
import { describe, expect, it } from 'vitest';
import { keyGroupOf } from '../graph/keyGroups.js';
import { KeyedState } from '../state/keyedState.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { readStatePage } from './stateBrowser.js';

const MAX_PARALLELISM = 16;
const ALL = { start: 0, end: MAX_PARALLELISM - 1 };

describe('the keys of a subtask, counted from its store', () => {
  it('counts a key once whatever states it holds, and says per state its keys and entries', async () => {
    const store = new MemoryKvStore();
    const state = new KeyedState(store);
    const holders = new Map<unknown, Set<string>>();
    const hold = (key: unknown, name: string) => {
      let names = holders.get(key);
      if (names === undefined) {
        names = new Set();
        holders.set(key, names);
      }
      names.add(name);
    };
    let mapEntries = 0;
    let listEntries = 0;
    // 5000 keys, a few hundred per key group: each space is read in several chunks.
    for (let i = 0; i < 5000; i++) {
      const key = i % 10 === 9 ? i : `k${i}`;
      state.setKey(keyGroupOf(key, MAX_PARALLELISM), key);
      if (i % 2 === 0) {
        state.api.value('count').set(i);
        hold(key, 'count');
      }
      if (i % 3 === 0) {
        const seen = state.api.map('seen');
        for (let e = 0; e < (i % 5) + 1; e++) seen.set(`e${e}`, e);
        mapEntries += (i % 5) + 1;
        // Every 4th map is emptied again: its key no longer holds it.
        if (i % 4 === 0) {
          seen.clear();
          mapEntries -= (i % 5) + 1;
        } else hold(key, 'seen');
      }
      if (i % 7 === 0) {
        state.api.list('log').add({ i });
        state.api.list('log').add({ i: -i });
        listEntries += 2;
        hold(key, 'log');
      }
    }
    const page = await readStatePage(await store.browse(), ALL, { limit: 1, sizes: true });
    expect(page.keys).toBe(holders.size);
    // The running count counts a key once per state it holds: more than there are keys.
    const perState = [...holders.values()].reduce((n, names) => n + names.size, 0);
    expect(state.stateSize().keys).toBe(perState);
    expect(perState).toBeGreaterThan(holders.size);
    const holding = (name: string) => [...holders.values()].filter((names) => names.has(name)).length;
    expect(page.states?.map((s) => [s.state, s.type, s.keys, s.entries])).toEqual([
      ['count', 'value', holding('count'), holding('count')],
      ['log', 'list', holding('log'), listEntries],
      ['seen', 'map', holding('seen'), mapEntries],
    ]);
    expect(page.states?.reduce((n, s) => n + s.entries, 0)).toBe(state.stateSize().entries);

    // One subtask's key groups: only the keys it owns.
    const half = { start: 0, end: MAX_PARALLELISM / 2 - 1 };
    const own = [...holders.keys()].filter((key) => keyGroupOf(key, MAX_PARALLELISM) <= half.end);
    expect((await readStatePage(await store.browse(), half, { limit: 1, sizes: true })).keys).toBe(
      own.length,
    );
  });
});
