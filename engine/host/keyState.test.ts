// Finding a key's state by the key alone, over every subtask: the key-group formula names the
// subtask, and there one look-up per state finds it (a string key and a number key that read
// the same are told apart); a map's elements page through in order; a compare of a key between
// two stores marks each element added, removed or changed, a page of changes at a time.
import { describe, expect, it } from 'vitest';
import { keyGroupOf, keyGroupRange } from '../graph/keyGroups.js';
import { KeyedState } from '../state/keyedState.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { locateKey, readElements, readKeyState } from './keyState.js';
import { compareKeyState, SCAN_BUDGET } from './keyStateCompare.js';

const MAX_PARALLELISM = 128;
const PARALLELISM = 4;

/** Four subtasks' stores: keys k0..k199 (a count each, every 10th a map of items), and number keys 0..9. */
function subtasks() {
  const stores = Array.from({ length: PARALLELISM }, () => new MemoryKvStore());
  const states = stores.map((store) => new KeyedState(store));
  const at = (key: unknown) => {
    const { keyGroup, subtask } = locateKey(key, PARALLELISM, MAX_PARALLELISM);
    const state = states[subtask]!;
    state.setKey(keyGroup, key);
    return state.api;
  };
  for (let i = 0; i < 200; i++) {
    const api = at(`k${i}`);
    api.value('count').set(i);
    if (i % 10 === 0) for (let e = 0; e < 25; e++) api.map('items').set(`i${e}`, { n: e * i });
  }
  for (let n = 0; n < 10; n++) at(n).value('count').set(-n);
  return { stores, at };
}

describe('finding a key by the key alone', () => {
  it('names the subtask that owns a key, as the key groups say, and finds its state there only', async () => {
    const { stores } = subtasks();
    for (const key of ['k0', 'k17', 'k150', 3]) {
      const { keyGroup, subtask } = locateKey(key, PARALLELISM, MAX_PARALLELISM);
      expect(keyGroup).toBe(keyGroupOf(key, MAX_PARALLELISM));
      const range = keyGroupRange(subtask, PARALLELISM, MAX_PARALLELISM);
      expect(keyGroup >= range.start && keyGroup <= range.end).toBe(true);
      // Every subtask's store is asked: only the owner has it.
      const found = await Promise.all(
        stores.map(async (store) => (await readKeyState(await store.browse(), keyGroup, key)).entries),
      );
      expect(found.map((entries) => entries.length > 0)).toEqual(stores.map((_, s) => s === subtask));
    }
    const k10 = locateKey('k10', PARALLELISM, MAX_PARALLELISM);
    const { entries } = await readKeyState(await stores[k10.subtask]!.browse(), k10.keyGroup, 'k10');
    expect(entries.map((e) => [e.key, e.state, e.type, e.elementCount])).toEqual([
      ['k10', 'count', 'value', undefined],
      ['k10', 'items', 'map', 25],
    ]);
    expect(entries[0]!.value).toBe(10);
    // The number key 3 and the string key "3": one has state, the other none.
    const three = locateKey('3', PARALLELISM, MAX_PARALLELISM);
    expect((await readKeyState(await stores[three.subtask]!.browse(), three.keyGroup, '3')).entries).toEqual(
      [],
    );
  });

  it("pages through a map's elements in order, after the first ones an entry shows", async () => {
    const { stores } = subtasks();
    const { keyGroup, subtask } = locateKey('k20', PARALLELISM, MAX_PARALLELISM);
    const browser = await stores[subtask]!.browse();
    const [, items] = (await readKeyState(browser, keyGroup, 'k20')).entries;
    expect((items!.value as unknown[]).length).toBe(10);
    const seen: unknown[] = (items!.value as [unknown, unknown][]).map(([element]) => element);
    let after = items!.elementsAfter;
    while (after !== undefined) {
      const page = await readElements(browser, keyGroup, 'k20', {
        state: 'items',
        type: 'map',
        after,
        limit: 7,
      });
      expect(page.count).toBe(25);
      seen.push(...page.elements.map((e) => e.element));
      after = page.next;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, e) => `i${e}`).sort());
  });
});

describe('comparing a key between two stores', () => {
  it('marks each element added, removed or changed, with before and after, a page at a time', async () => {
    const before = new MemoryKvStore();
    const after = new MemoryKvStore();
    const key = 'o7';
    const keyGroup = keyGroupOf(key, MAX_PARALLELISM);
    const write = (store: MemoryKvStore, fill: (state: KeyedState) => void) => {
      const state = new KeyedState(store);
      state.setKey(keyGroup, key);
      fill(state);
    };
    write(before, (s) => {
      s.api.value('total').set(3);
      s.api.value('gone').set('x');
      for (let i = 0; i < 60; i++) s.api.map('items').set(`i${String(i).padStart(2, '0')}`, { v: i });
      s.api.list('log').add('a');
    });
    write(after, (s) => {
      s.api.value('total').set(4);
      s.api.value('new').set(true);
      for (let i = 0; i < 60; i++) {
        if (i % 10 === 0) continue; // removed
        s.api.map('items').set(`i${String(i).padStart(2, '0')}`, { v: i % 7 === 0 ? -i : i });
      }
      s.api.map('items').set('j0', { v: 0 });
      s.api.list('log').add('a');
      s.api.list('log').add('b');
    });
    const sides = {
      from: { browser: await before.browse(), keyGroup },
      to: { browser: await after.browse(), keyGroup },
    };
    const states = await compareKeyState(sides.from, sides.to, key, { limit: 5 });
    expect(states.map((s) => [s.state, s.type, s.change])).toEqual([
      ['gone', 'value', 'removed'],
      ['items', 'map', 'changed'],
      ['log', 'list', 'changed'],
      ['new', 'value', 'added'],
      ['total', 'value', 'changed'],
    ]);
    expect(states[4]).toMatchObject({ before: 3, after: 4 });
    expect(states[0]).toEqual({ state: 'gone', type: 'value', change: 'removed', before: 'x' });
    expect(states[2]).toMatchObject({
      countBefore: 1,
      countAfter: 2,
      changes: [{ element: 1, change: 'added', after: 'b' }],
      unchanged: 1,
    });
    // The map's changes, page by page: each removed, changed and added element once, in order.
    const items = states[1]!;
    expect(items.changes).toEqual([
      { element: 'i00', change: 'removed', before: { v: 0 } },
      { element: 'i07', change: 'changed', before: { v: 7 }, after: { v: -7 } },
      { element: 'i10', change: 'removed', before: { v: 10 } },
      { element: 'i14', change: 'changed', before: { v: 14 }, after: { v: -14 } },
      { element: 'i20', change: 'removed', before: { v: 20 } },
    ]);
    const all = [...items.changes!];
    let next = items.next;
    while (next !== undefined) {
      const [page] = await compareKeyState(sides.from, sides.to, key, {
        state: 'items',
        type: 'map',
        after: next,
        limit: 5,
      });
      all.push(...page!.changes!);
      next = page!.next;
    }
    const expected = [
      ...Array.from({ length: 60 }, (_, i) => i)
        .filter((i) => i % 10 === 0 || i % 7 === 0)
        .map((i) => `i${String(i).padStart(2, '0')}`),
      'j0',
    ];
    expect(all.map((c) => c.element)).toEqual(expected);
    expect(all.at(-1)).toEqual({ element: 'j0', change: 'added', after: { v: 0 } });
  });

  it('stops a page after so many elements alike, and says it has not found a change yet', async () => {
    const store = new MemoryKvStore();
    const key = 'big';
    const keyGroup = keyGroupOf(key, MAX_PARALLELISM);
    const state = new KeyedState(store);
    state.setKey(keyGroup, key);
    for (let i = 0; i < SCAN_BUDGET + 10; i++) state.api.map('m').set(i, i);
    const side = { browser: await store.browse(), keyGroup };
    const [first] = await compareKeyState(side, side, key, { limit: 50 });
    expect(first).toMatchObject({ state: 'm', changes: [], unchanged: SCAN_BUDGET });
    expect(first!.change).toBeUndefined();
    expect(first!.next).toBeDefined();
    const [rest] = await compareKeyState(side, side, key, {
      state: 'm',
      type: 'map',
      after: first!.next!,
      limit: 50,
    });
    expect(rest).toMatchObject({ changes: [], unchanged: 10 });
    expect(rest!.next).toBeUndefined();
  });
});
