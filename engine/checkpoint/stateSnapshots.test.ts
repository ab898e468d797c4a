// Keyed state through checkpoints: every checkpoint, restored into a fresh store, gives back the
// state at its barrier, whether it is a base, a base with changes, or (on the heap) a copy; a
// new base follows once the changes outgrow the last one, and after a checkpoint whose files
// failed; no changes are written when the next checkpoint takes a base anyway.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyedState } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import type { StateHandle } from './checkpointMetadata.js';
import { CheckpointStorage, type DataFileWriter } from './checkpointStorage.js';
import { restoreState, type StateSnapshotResult, StateSnapshots } from './stateSnapshots.js';

let root: string;
let dirs = 0;
const freshDir = () => join(root, `dir-${dirs++}`);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-state-snapshots-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const ALL = { start: 0, end: 127 };

/** Fails to create the data files it is told to, as a full or broken disk would. */
class FlakyStorage extends CheckpointStorage {
  failing = false;

  override createDataFile(path: string): DataFileWriter {
    // A regular file where a folder should be: mkdir fails.
    return super.createDataFile(this.failing ? join('blocker', path) : path);
  }
}

async function dump(store: KvStore): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const chunk of await store.snapshotEntries()) for (const [k, v] of chunk) out.push([k, v]);
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

async function restored(storage: CheckpointStorage, handle: StateHandle, memory: boolean) {
  const store = memory ? new MemoryKvStore() : await LevelKvStore.open(freshDir(), 1 << 20);
  try {
    await restoreState(storage, store, [handle], ALL);
    return await dump(store);
  } finally {
    await store.close();
  }
}

const kindOf = (r: StateSnapshotResult) =>
  r.handle.changes.length === 0 ? 'base' : `base+${r.handle.changes.length}`;

/** One interval of writes: `keys` value states set, and a map that is filled, and cleared every third time. */
async function work(state: KeyedState, store: KvStore, round: number, keys: number): Promise<void> {
  for (let i = 0; i < keys; i++) {
    state.setKey(i % 128, `k${i}`);
    state.api.value('v').set({ round, i, text: i % 10 === 0 ? 'naïve ✓' : 'plain' });
    if (i % 50 === 0) {
      const m = state.api.map('m');
      if (round % 3 === 2) m.clear();
      else m.set(`e${round}`, round);
    }
    if (i % 97 === 0) state.api.value('gone').set(i);
    if (i % 97 === 1) state.api.value('gone').clear();
    const wait = store.maybeFlush();
    if (wait !== undefined) await wait;
  }
}

async function takeCheckpoint(snapshots: StateSnapshots, store: KvStore, id: number) {
  const pending = snapshots.snapshot(id, { entries: 0, bytes: 0 });
  // Handled by the caller later, after the dump; a subtask's acknowledgement takes it at once.
  pending.written.catch(() => {});
  await pending.taken;
  const expected = await dump(store);
  return { expected, result: pending.written };
}

describe('StateSnapshots', () => {
  it('on LevelDB: a base, then changes until they outgrow it, then a base again; each restores exactly', async () => {
    const storage = new CheckpointStorage(freshDir());
    const store = await LevelKvStore.open(freshDir(), 1 << 20);
    const state = new KeyedState(store);
    const snapshots = new StateSnapshots(storage, 'op', 0, store, ALL, 1);
    // 2000 keys; then a few, then 1000 and 1500 change per interval, until the changes outgrow
    // twice the base (after checkpoint 6): checkpoint 7 takes a base, and nothing is logged before it.
    const keysPerRound = [2000, 100, 1000, 1000, 1000, 1500, 100, 100, 100];
    const results: { id: number; expected: [string, string][]; result: StateSnapshotResult }[] = [];
    try {
      for (const [index, keys] of keysPerRound.entries()) {
        const id = index + 1;
        await work(state, store, id, keys);
        const { expected, result } = await takeCheckpoint(snapshots, store, id);
        results.push({ id, expected, result: await result });
      }
    } finally {
      await snapshots.discard();
      await store.close();
    }
    expect(results.map((r) => kindOf(r.result))).toEqual([
      'base',
      'base+1',
      'base+2',
      'base+3',
      'base+4',
      'base+5',
      'base',
      'base+1',
      'base+2',
    ]);
    for (const { id, expected, result } of results) {
      expect(await restored(storage, result.handle, false), `checkpoint ${id}`).toEqual(expected);
    }
    // Before the first base and in the interval before each later one, nothing went to a changes file.
    const files = (await readdir(join(storage.root, 'data', 'op-0'))).sort();
    expect(files.filter((f) => f.startsWith('changes-'))).toEqual([
      'changes-2.kv',
      'changes-3.kv',
      'changes-4.kv',
      'changes-5.kv',
      'changes-6.kv',
      'changes-8.kv',
      'changes-9.kv',
    ]);
  }, 60_000);

  it('on LevelDB: after a checkpoint whose changes could not be written, the next one is a base', async () => {
    const storage = new FlakyStorage(freshDir());
    await mkdir(storage.root, { recursive: true });
    await writeFile(join(storage.root, 'blocker'), 'not a folder');
    const store = await LevelKvStore.open(freshDir(), 1 << 20);
    const state = new KeyedState(store);
    const snapshots = new StateSnapshots(storage, 'op', 0, store, ALL, 1);
    try {
      await work(state, store, 1, 500);
      expect(kindOf(await (await takeCheckpoint(snapshots, store, 1)).result)).toBe('base');
      await work(state, store, 2, 100);
      storage.failing = true;
      const failed = await takeCheckpoint(snapshots, store, 2);
      storage.failing = false;
      await expect(failed.result).rejects.toThrow();
      await work(state, store, 3, 100);
      const next = await takeCheckpoint(snapshots, store, 3);
      const result = await next.result;
      expect(kindOf(result)).toBe('base');
      expect(await restored(storage, result.handle, false)).toEqual(next.expected);
      await work(state, store, 4, 100);
      expect(kindOf(await (await takeCheckpoint(snapshots, store, 4)).result)).toBe('base+1');
    } finally {
      await snapshots.discard();
      await store.close();
    }
  });

  it('on LevelDB: a base taken while batches are still being written holds them, and nothing later', async () => {
    const storage = new CheckpointStorage(freshDir());
    const store = await LevelKvStore.open(freshDir(), 1 << 20);
    const state = new KeyedState(store);
    const snapshots = new StateSnapshots(storage, 'op', 0, store, ALL, 1);
    try {
      await work(state, store, 1, 3000);
      // Two batches started and not waited for, the second with a map cleared (a dropped range),
      // then the barrier: its base is read from LevelDB while they are being written.
      for (let i = 0; i < 5000; i++) {
        state.setKey(i % 128, `k${i}`);
        state.api.value('v').set({ round: 2, i });
        if (i % 7 === 0) state.api.value('gone').clear();
        if (i === 4500) state.api.map('m').clear();
        void store.maybeFlush();
      }
      const pending = snapshots.snapshot(1, { entries: 0, bytes: 0 });
      pending.written.catch(() => {});
      await pending.taken;
      const expected = await dump(store);
      // After the barrier: overwritten, deleted and cleared again before the base is written.
      await work(state, store, 3, 3000);
      const result = await pending.written;
      expect(kindOf(result)).toBe('base');
      expect(await restored(storage, result.handle, false)).toEqual(expected);
    } finally {
      await snapshots.discard();
      await store.close();
    }
  });

  it('on the heap: every checkpoint is a whole copy, and restores exactly', async () => {
    const storage = new CheckpointStorage(freshDir());
    const store = new MemoryKvStore();
    const state = new KeyedState(store);
    const snapshots = new StateSnapshots(storage, 'op', 0, store, ALL, 1);
    for (const id of [1, 2, 3]) {
      await work(state, store, id, 300);
      const { expected, result } = await takeCheckpoint(snapshots, store, id);
      const written = await result;
      expect(kindOf(written)).toBe('base');
      expect(await restored(storage, written.handle, true)).toEqual(expected);
    }
  });
});
