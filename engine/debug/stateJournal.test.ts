// The state journal under a keyed store (LevelDB in a temp folder, and the heap): rolling back
// writes and map/list clears to a mark gives back exactly the entries of then; a clear reaches
// the store only once the journal forgets it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeyedState } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { JournaledStore, StateJournal } from './stateJournal.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Every entry of the store, as [full key, JSON text], sorted. */
async function entries(store: KvStore): Promise<[string, string][]> {
  const all: [string, string][] = [];
  for await (const chunk of await store.snapshotEntries()) all.push(...chunk);
  return all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const backends: [string, () => Promise<KvStore>][] = [
  ['memory', async () => new MemoryKvStore()],
  [
    'level',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'pipewright-journal-'));
      dirs.push(dir);
      return LevelKvStore.open(dir, 1 << 20);
    },
  ],
];

describe.each(backends)('the state journal on %s', (_name, open) => {
  it('rolls value, map and list state back to a mark, clears included, and passes a clear on once forgotten', async () => {
    const inner = await open();
    const journal = new StateJournal();
    const state = new KeyedState(new JournaledStore(inner, journal));
    const at = (key: string) => state.setKey(7, key);
    at('a');
    state.api.value('v').set({ n: 1 });
    state.api.map('m').set('x', 1);
    state.api.map('m').set('y', 2);
    state.api.list('l').add('first');
    const mark = journal.mark;
    const then = await entries(inner);
    const size = state.stateSize();

    state.api.value('v').set({ n: 2 });
    state.api.map('m').delete('x');
    state.api.map('m').clear();
    state.api.map('m').set('z', 3);
    state.api.list('l').clear();
    at('b');
    state.api.value('v').set('b');
    expect(await entries(inner)).not.toEqual(then);

    journal.rollBack(mark);
    state.resetSize(size);
    expect(await entries(inner)).toEqual(then);
    at('a');
    expect(state.api.value('v').get()).toEqual({ n: 1 });
    expect(state.api.map('m').get('x')).toBe(1);
    expect(state.api.map('m').get('z')).toBeUndefined();
    const list: unknown[] = [];
    for await (const item of state.api.list('l').values()) list.push(item);
    expect(list).toEqual(['first']);

    // A clear is held: the old elements stay in the store until the journal forgets the clear.
    state.api.map('m').clear();
    const held = await entries(inner);
    expect(held.some(([key]) => key.endsWith('\0x'))).toBe(true);
    journal.forget(journal.mark);
    const dropped = await entries(inner);
    expect(dropped.some(([key]) => key.endsWith('\0x'))).toBe(false);
    expect(() => journal.rollBack(mark)).toThrow(/no longer reaches back/);
    await inner.close();
  });
});
