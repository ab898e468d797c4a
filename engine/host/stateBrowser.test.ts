// The state browser over a transaction operator's tables, which are keyed value state named
// after each table: a subtask's rows page through in key order, every row once, only the
// subtask's own key groups; and the per-state sizes count each table's rows and bytes exactly as
// the running state counts them (state sizes in the metrics are only the subtask's totals).
import { describe, expect, it } from 'vitest';
import { keyGroupOf } from '../graph/keyGroups.js';
import { KeyedState } from '../state/keyedState.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { readStatePage } from './stateBrowser.js';
import { readStateSizes } from './stateSizes.js';

const MAX_PARALLELISM = 128;
/** Subtask 1 of 3 owns key groups 43..85. */
const SUBTASK_1 = { start: 43, end: 85 };

/** Accounts a0..a(n-1) with a balance each, an audit row for every third, a map beside them. */
function ledgerState(accounts: number): { state: KeyedState; store: MemoryKvStore } {
  const store = new MemoryKvStore();
  const state = new KeyedState(store);
  for (let i = 0; i < accounts; i++) {
    const key = `a${i}`;
    state.setKey(keyGroupOf(key, MAX_PARALLELISM), key);
    state.api.value('accounts').set({ balance: i });
    if (i % 3 === 0) state.api.value('audit').set(i);
    if (i % 7 === 0) state.api.map('notes').set('first', `note ${i}`);
  }
  // A number key is a row too (keys are strings or finite numbers).
  state.setKey(keyGroupOf(7, MAX_PARALLELISM), 7);
  state.api.value('accounts').set({ balance: -7 });
  return { state, store };
}

const owned = (key: unknown, range = SUBTASK_1) => {
  const group = keyGroupOf(key, MAX_PARALLELISM);
  return group >= range.start && group <= range.end;
};

describe("the state browser over a transaction's tables", () => {
  it("pages a subtask's rows in key order, every row once and only its own", async () => {
    const { store } = ledgerState(2500);
    const browser = await store.browse();
    const seen: [unknown, string, unknown][] = [];
    let after: string | undefined;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(1000);
      const page = await readStatePage(browser, SUBTASK_1, {
        limit: 97,
        ...(after === undefined ? {} : { after }),
      });
      for (const entry of page.entries) seen.push([entry.key, entry.state, entry.value]);
      if (page.next === undefined) break;
      after = page.next;
    }
    const rows = seen.filter(([, state]) => state === 'accounts');
    const expected = [
      ...(owned(7) ? [7] : []),
      ...Array.from({ length: 2500 }, (_, i) => `a${i}`)
        .filter((key) => owned(key))
        .sort(),
    ];
    expect(rows.map(([key]) => key)).toEqual(expected);
    for (const [key, , value] of rows) {
      expect(value).toEqual({ balance: key === 7 ? -7 : Number(String(key).slice(1)) });
    }
    expect(seen.filter(([, state]) => state === 'audit').length).toBe(
      expected.filter((key) => typeof key === 'string' && Number(key.slice(1)) % 3 === 0).length,
    );
  });

  it("counts each table's rows and bytes as the running state counts them", async () => {
    const { state, store } = ledgerState(2500);
    const all = { start: 0, end: MAX_PARALLELISM - 1 };
    const { states: sizes } = await readStateSizes(await store.browse(), all);
    expect(sizes.map((s) => [s.state, s.type, s.keys, s.entries])).toEqual([
      ['accounts', 'value', 2501, 2501],
      ['audit', 'value', 834, 834],
      ['notes', 'map', 358, 358],
    ]);
    const total = state.stateSize();
    expect(sizes.reduce((sum, s) => sum + s.keys, 0)).toBe(total.keys);
    expect(sizes.reduce((sum, s) => sum + s.bytes, 0)).toBe(total.bytes);
    expect(sizes.reduce((sum, s) => sum + s.entries, 0)).toBe(total.entries);

    // One subtask's: its own rows, and asked for with a page.
    const page = await readStatePage(await store.browse(), SUBTASK_1, { limit: 1, sizes: true });
    const accounts = page.states?.find((s) => s.state === 'accounts');
    const ownRows = Array.from({ length: 2500 }, (_, i) => `a${i}`).filter((key) => owned(key)).length;
    expect(accounts?.keys).toBe(ownRows + (owned(7) ? 1 : 0));
    expect((await readStatePage(await store.browse(), SUBTASK_1, { limit: 1 })).states).toBeUndefined();
  });
});
