// List state on LevelDB, where a small list's positions are known from its meta (0 to p - 1):
// its elements are written without a read, read by key and deleted by key in the batch being
// gathered, so a list added to and cleared before its batch leaves (NEXMark q4's early bids)
// never reaches LevelDB, and a scan does not wait for the pending writes. Sizes stay exact and a
// checkpoint restores the list as it was, whichever way it was cleared (by key or by range).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import { restoreState, StateSnapshots } from '../checkpoint/stateSnapshots.js';
import { KeyedState } from './keyedState.js';
import { type FlushedBatch, forEachWrite } from './kvStore.js';
import { LevelKvStore } from './levelKvStore.js';
import { StateTag } from './stateKeys.js';

let root: string;
let dirs = 0;
const freshDir = () => join(root, `dir-${dirs++}`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-level-list-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const ALL = { start: 0, end: 127 };

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** A store whose batches are kept as they go to LevelDB. */
async function open(cacheBytes = 1 << 20) {
  const store = await LevelKvStore.open(freshDir(), cacheBytes);
  const batches: FlushedBatch[] = [];
  store.onFlush = (flushed) => {
    batches.push(flushed);
    return undefined;
  };
  return { store, state: new KeyedState(store), batches };
}

/** Counting what the store holds gives the sizes the state kept as it ran; they are returned. */
async function expectSizesExact(state: KeyedState) {
  const size = state.stateSize();
  state.resetSize({ entries: 0, bytes: 0, keys: 0 });
  await state.recount();
  expect(state.stateSize()).toEqual(size);
  return size;
}

/** The keys a batch writes (not those it drops). */
function writtenKeys(flushed: FlushedBatch): string[] {
  const keys: string[] = [];
  forEachWrite(flushed, (key) => keys.push(key));
  return keys;
}

/** Every key LevelDB holds after the pending batches. */
async function onDisk(store: LevelKvStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const chunk of await store.snapshotEntries()) for (const [key] of chunk) keys.push(key);
  return keys;
}

const isListElement = (key: string) => key.charAt(4) === StateTag.ListElements;

describe('list state on LevelDB', () => {
  it('a list added to and cleared within one batch leaves nothing for LevelDB: no element, no range', async () => {
    const { store, state, batches } = await open();
    try {
      state.setKey(3, 'auction-1');
      const early = state.api.list('early');
      early.add({ price: 1 });
      early.add({ price: 2 });
      state.api.value('v').set(1);
      expect(await collect(early.values())).toEqual([{ price: 1 }, { price: 2 }]);
      early.clear();
      expect(await collect(early.values())).toEqual([]);
      await store.flush();
      const written = batches.flatMap(writtenKeys);
      expect(written.filter(isListElement)).toEqual([]);
      expect(batches.flatMap((b) => b.dropped)).toEqual([]);
      // The value and the list's meta (its next generation) are written all the same.
      expect(written.filter((key) => !isListElement(key))).toHaveLength(2);
      expect((await expectSizesExact(state)).entries).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('a scan of a small list does not write the batch being gathered', async () => {
    const { store, state, batches } = await open();
    try {
      for (let k = 0; k < 20; k++) {
        state.setKey(k % 4, `k${k}`);
        state.api.list('l').add(k);
        state.api.list('l').add(`${k}b`);
      }
      for (let k = 0; k < 20; k++) {
        state.setKey(k % 4, `k${k}`);
        expect(await collect(state.api.list('l').values())).toEqual([k, `${k}b`]);
      }
      expect(batches).toHaveLength(0);
    } finally {
      await store.close();
    }
  });

  it('reads a list back by key from every place it may be: the cache, the batch in flight, LevelDB', async () => {
    // A cache of a few entries: most elements are read from LevelDB or the pending batches.
    const { store, state } = await open(2000);
    try {
      const expected = new Map<string, unknown[]>();
      for (let round = 0; round < 6; round++) {
        for (let k = 0; k < 50; k++) {
          state.setKey(k % 8, `k${k}`);
          const l = state.api.list('l');
          if ((k + round) % 5 === 0) {
            l.clear();
            expected.set(`k${k}`, []);
          }
          l.add({ round, k });
          expected.get(`k${k}`)?.push({ round, k }) ?? expected.set(`k${k}`, [{ round, k }]);
        }
        if (round % 2 === 0) store.flushNow();
        else await store.flush();
        for (let k = 0; k < 50; k++) {
          state.setKey(k % 8, `k${k}`);
          expect(await collect(state.api.list('l').values()), `round ${round} k${k}`).toEqual(
            expected.get(`k${k}`),
          );
        }
      }
      await expectSizesExact(state);
    } finally {
      await store.close();
    }
  });

  it('a scan is a snapshot: adds and a clear during it do not show in it', async () => {
    const { store, state } = await open();
    try {
      state.setKey(1, 'k');
      const l = state.api.list('l');
      for (const v of ['a', 'b', 'c']) l.add(v);
      const seen: unknown[] = [];
      for await (const v of l.values()) {
        seen.push(v);
        if (v === 'a') {
          l.add('d');
          l.clear();
          l.add('e');
        }
      }
      expect(seen).toEqual(['a', 'b', 'c']);
      expect(await collect(l.values())).toEqual(['e']);
    } finally {
      await store.close();
    }
  });

  it('clears a list by key after its elements reached LevelDB, and a large one by range: sizes exact, nothing left', async () => {
    const { store, state, batches } = await open();
    try {
      state.setKey(2, 'small');
      for (let i = 0; i < 5; i++) state.api.list('l').add(`s${i}`);
      state.setKey(2, 'large');
      for (let i = 0; i < 600; i++) state.api.list('l').add(`x${i}`);
      await store.flush();
      const before = batches.length;
      state.setKey(2, 'small');
      state.api.list('l').clear();
      state.api.list('l').add('after');
      state.setKey(2, 'large');
      state.api.list('l').clear();
      state.api.list('l').add('after');
      await store.flush();
      const later = batches.slice(before);
      // The small list's 5 elements are deleted by key, the large one's by one range.
      const deleted = later.flatMap((b) =>
        [...b.batch].filter(([key, v]) => v === null && isListElement(key)),
      );
      expect(deleted).toHaveLength(5);
      expect(later.flatMap((b) => b.dropped)).toHaveLength(1);
      const elements = (await onDisk(store)).filter(isListElement);
      expect(elements).toHaveLength(2);
      expect(state.stateSize().entries).toBe(2);
      await expectSizesExact(state);
    } finally {
      await store.close();
    }
  });

  it('a checkpoint after lists were cleared and added to again restores them as they were, sizes exact', async () => {
    const storage = new CheckpointStorage(freshDir());
    const { store, state } = await open();
    const snapshots = new StateSnapshots(storage, 'op', 0, store, ALL, 1);
    const expected = new Map<string, unknown[]>();
    const take = async (id: number) => {
      const pending = snapshots.snapshot(id, { entries: 0, bytes: 0 });
      pending.written.catch(() => {});
      await pending.taken;
      return (await pending.written).handle;
    };
    const handles = [];
    try {
      for (let round = 0; round < 4; round++) {
        for (let k = 0; k < 40; k++) {
          state.setKey(k % 128, `k${k}`);
          const l = state.api.list('early');
          // Some lists cleared each round, one of them large enough to be dropped by range.
          if ((k + round) % 3 === 0) {
            await collect(l.values());
            l.clear();
            expected.set(`k${k}`, []);
          }
          const adds = k === 7 ? 300 : 2;
          for (let i = 0; i < adds; i++) {
            l.add([round, i]);
            expected.get(`k${k}`)?.push([round, i]) ?? expected.set(`k${k}`, [[round, i]]);
          }
          const wait = store.maybeFlush();
          if (wait !== undefined) await wait;
        }
        handles.push(await take(round + 1));
      }
      const size = state.stateSize();

      const restoredStore = await LevelKvStore.open(freshDir(), 1 << 20);
      try {
        await restoreState(storage, restoredStore, [handles[handles.length - 1]!], ALL);
        const restored = new KeyedState(restoredStore);
        await restored.recount();
        expect(restored.stateSize()).toEqual(size);
        for (let k = 0; k < 40; k++) {
          restored.setKey(k % 128, `k${k}`);
          expect(await collect(restored.api.list('early').values()), `k${k}`).toEqual(expected.get(`k${k}`));
          // An add after the restore goes after the elements restored.
          restored.api.list('early').add('new');
          expect((await collect(restored.api.list('early').values())).at(-1)).toBe('new');
        }
        expect(restored.stateSize().entries).toBe(size.entries + 40);
        // No element of a cleared generation is left in LevelDB.
        const total = [...expected.values()].reduce((n, l) => n + l.length, 0);
        expect((await onDisk(restoredStore)).filter(isListElement)).toHaveLength(total + 40);
      } finally {
        await restoredStore.close();
      }
      expect((await onDisk(store)).filter(isListElement)).toHaveLength(size.entries);
    } finally {
      await snapshots.discard();
      await store.close();
    }
  }, 30_000);
});
