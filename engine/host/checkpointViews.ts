// The state of one subtask as a completed checkpoint holds it, for the state browser: its base and
// changes restored into a LevelDB of its own in a temporary folder, then browsed like a live
// store. A restore reads the subtask's files once; the last few views stay open, so paging, and
// comparing a key between two checkpoints, restore nothing again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import { restoreState } from '../checkpoint/stateSnapshots.js';
import { keyGroupOf } from '../graph/keyGroups.js';
import { LevelKvStore } from '../state/levelKvStore.js';
import type { StoreBrowser } from '../state/storeBrowser.js';

/** Views kept open: two checkpoints compared, and a little room for going back and forth. */
const VIEWS_KEPT = 4;
/** A view is read a page at a time: a small read cache is plenty. */
const VIEW_CACHE_BYTES = 4 * 1024 * 1024;

export interface CheckpointView {
  readonly browser: StoreBrowser;
  /** The key groups the subtask owned when the checkpoint was taken. */
  readonly keyGroups: { readonly start: number; readonly end: number };
}

interface OpenView {
  readonly view: Promise<CheckpointView>;
  readonly close: () => Promise<void>;
  users: number;
}

export class CheckpointViews {
  /** In order of last use, oldest first. */
  private readonly views = new Map<string, OpenView>();
  private closed = false;

  /**
   * Runs `read` on the view of one subtask of checkpoint `id` in `checkpointDir`; throws naming
   * the checkpoint, operator or subtask when the checkpoint lacks it, or why it cannot be read.
   */
  async read<T>(
    checkpointDir: string,
    id: number,
    operator: string,
    subtask: number,
    read: (view: CheckpointView) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new Error('the host is shutting down');
    const name = JSON.stringify([checkpointDir, id, operator, subtask]);
    let entry = this.views.get(name);
    if (entry === undefined) {
      entry = this.openView(checkpointDir, id, operator, subtask);
      this.views.set(name, entry);
    } else {
      this.views.delete(name);
      this.views.set(name, entry);
    }
    entry.users++;
    try {
      return await read(await entry.view);
    } catch (error) {
      // A view that could not be made is not kept: the files may be there next time.
      if (
        this.views.get(name) === entry &&
        (await entry.view.then(
          () => false,
          () => true,
        ))
      ) {
        this.views.delete(name);
      }
      throw error;
    } finally {
      entry.users--;
      await this.evict();
    }
  }

  /**
   * Where `key` lived in checkpoint `id`: its key group, and the subtask of `operator` that owned
   * it then (as the checkpoint's own parallelism had it, which a restore may since have changed).
   */
  async locate(
    checkpointDir: string,
    id: number,
    operator: string,
    key: unknown,
  ): Promise<{ keyGroup: number; subtask: number }> {
    const metadata = await metadataOf(new CheckpointStorage(checkpointDir), checkpointDir, id, operator);
    const keyGroup = keyGroupOf(key, metadata.maxParallelism);
    const owner = metadata.subtasks.find(
      (s) =>
        s.operator === operator &&
        s.state !== undefined &&
        s.state.keyGroups.start <= keyGroup &&
        keyGroup <= s.state.keyGroups.end,
    );
    if (owner === undefined)
      throw new Error(`operator "${operator}" kept no keyed state in checkpoint ${id}`);
    return { keyGroup, subtask: owner.subtask };
  }

  private openView(checkpointDir: string, id: number, operator: string, subtask: number): OpenView {
    let folder: string | undefined;
    let store: LevelKvStore | undefined;
    const view = (async (): Promise<CheckpointView> => {
      const storage = new CheckpointStorage(checkpointDir);
      const metadata = await metadataOf(storage, checkpointDir, id, operator);
      const snapshot = metadata.subtasks.find((s) => s.operator === operator && s.subtask === subtask);
      if (snapshot === undefined) {
        const parallelism = metadata.operators.find((o) => o.id === operator)!.parallelism;
        throw new Error(
          `checkpoint ${id} has no subtask ${subtask} of operator "${operator}" (it ran ${parallelism} subtask${parallelism === 1 ? '' : 's'}, 0 to ${parallelism - 1})`,
        );
      }
      if (snapshot.state === undefined) {
        throw new Error(`operator "${operator}" kept no keyed state in checkpoint ${id}`);
      }
      folder = await mkdtemp(join(tmpdir(), 'pipewright-checkpoint-view-'));
      store = await LevelKvStore.open(folder, VIEW_CACHE_BYTES);
      await restoreState(storage, store, [snapshot.state], snapshot.state.keyGroups);
      return { browser: await store.browse(), keyGroups: snapshot.state.keyGroups };
    })();
    const close = async () => {
      await view.catch(() => {});
      await store?.close().catch(() => {});
      if (folder !== undefined) await rm(folder, { recursive: true, force: true });
    };
    // Whatever went wrong while making it is answered to the reader; the folder must still go.
    view.catch(() => close());
    return { view, close, users: 0 };
  }

  private async evict(): Promise<void> {
    const idle = [...this.views].filter(([, entry]) => entry.users === 0);
    const excess = this.views.size - VIEWS_KEPT;
    for (const [name, entry] of idle.slice(0, Math.max(0, excess))) {
      this.views.delete(name);
      await entry.close();
    }
  }

  /** Closes every view and deletes its folder; reads after this are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.views.values()];
    this.views.clear();
    await Promise.all(all.map((entry) => entry.close()));
  }
}

/** The metadata of completed checkpoint `id`, which must hold `operator`; throws saying what is there. */
async function metadataOf(
  storage: CheckpointStorage,
  checkpointDir: string,
  id: number,
  operator: string,
): Promise<CheckpointMetadata> {
  const ids = await storage.completedIds();
  if (!ids.includes(id)) {
    throw new Error(
      `checkpoint ${id} is not a completed checkpoint in ${checkpointDir} (${ids.length === 0 ? 'there is none' : `there are ${[...ids].reverse().join(', ')}`})`,
    );
  }
  const metadata = await storage.load(id);
  if (!metadata.operators.some((o) => o.id === operator)) {
    throw new Error(`checkpoint ${id} has no operator "${operator}"`);
  }
  return metadata;
}
