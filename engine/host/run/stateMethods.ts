// The state rows of the host's method table: a subtask's state browsed a page at a time, a key
// found by the key alone (whichever subtask owns it), a map's or list's elements paged, a key
// compared between two checkpoints or a checkpoint and the live state, and the checkpoints still
// there to read. Live state is the run's own stores while it goes, and what a LevelDB run left
// once it ended; a checkpoint's is restored into a view of its own (checkpointViews.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStorage } from '../../checkpoint/checkpointStorage.js';
import { hasKeyedState } from '../../deploy/jobRun.js';
import { keyGroupRange } from '../../graph/keyGroups.js';
import { keysOfText } from '../../graph/keyText.js';
import type { Plan, PlannedOperator } from '../../graph/plan.js';
import type { CompareSide, KeyStateView } from '../../protocol/runProtocol.js';
import { LevelKvStore } from '../../state/levelKvStore.js';
import type { StoreBrowser } from '../../state/storeBrowser.js';
import { CheckpointViews } from '../checkpointViews.js';
import { locateKey, readElements, readKeyState } from '../keyState.js';
import { compareKeyState } from '../keyStateCompare.js';
import { readStatePage } from '../stateBrowser.js';
import type { DrivenRun } from './drivenRun.js';
import {
  runIdParams,
  stateCompareParams,
  stateElementsParams,
  stateKeyParams,
  statePageParams,
} from './runParams.js';
import type { RunMethodTable } from './runService.js';

/** A stored state is read a page at a time: a small read cache is plenty. */
const STORED_STATE_CACHE_BYTES = 4 * 1024 * 1024;
/** How long a page read that failed waits to see whether the run was just closing its stores. */
const CLOSING_GRACE_MS = 200;

/** The host's run, as the state rows read it. */
export interface RunEntry {
  readonly run: DrivenRun;
  readonly plan: Plan;
}

type StateMethod = 'state.page' | 'state.checkpoints' | 'state.key' | 'state.elements' | 'state.compare';

export interface StateMethods {
  readonly methods: Pick<RunMethodTable, StateMethod>;
  /** Lets go of the stores an ended run left open for reading (a new run empties its folder). */
  closeStoredStates(): Promise<void>;
  /** Lets go of every store and checkpoint view. */
  close(): Promise<void>;
}

/** `runOf` gives the run a request names, or throws naming the method. */
export function createStateMethods(runOf: (method: string, runId: string) => RunEntry): StateMethods {
  const views = new CheckpointViews();
  /** LevelDB state a run left behind, opened for reading once the run has ended. */
  const storedStates = new Map<string, Promise<LevelKvStore>>();

  function keyedOperator(method: string, entry: RunEntry, operatorId: string, subtask = 0): PlannedOperator {
    const { plan, run } = entry;
    const op = plan.byId.get(operatorId);
    if (op === undefined) throw new Error(`${method}: job "${run.job.name}" has no operator "${operatorId}"`);
    if (!hasKeyedState(op)) {
      throw new Error(
        `${method}: operator "${op.id}" keeps no keyed state (only operators with code whose every input is hash-partitioned do)`,
      );
    }
    if (subtask >= op.parallelism) {
      throw new Error(
        `${method}: operator "${op.id}" has ${op.parallelism} subtask${op.parallelism === 1 ? '' : 's'} (0 to ${op.parallelism - 1}); there is no subtask ${subtask}`,
      );
    }
    return op;
  }

  /** The state an ended run left in its state folder (LevelDB only: the heap's went with the run). */
  async function storedState(
    method: string,
    entry: RunEntry,
    op: PlannedOperator,
    subtask: number,
  ): Promise<StoreBrowser> {
    // A read that waited (a checkpoint located, a closing run's grace) may find its run replaced:
    // the new run owns the folder now, and opening it here would lock the new run out of it.
    const { run } = runOf(method, entry.run.runId);
    if (run.job.settings.stateBackend !== 'level') {
      throw new Error(
        `${method}: run ${run.runId} has ended and its state was on the heap (stateBackend "memory"); only its checkpoints can still be read`,
      );
    }
    const folder = join(run.dirs.stateDir, 'subtasks', `${op.id}-${subtask}`);
    let store = storedStates.get(folder);
    if (store === undefined) {
      if (!existsSync(folder)) {
        throw new Error(
          `${method}: there is no state of operator "${op.id}" subtask ${subtask} in ${folder}`,
        );
      }
      store = LevelKvStore.open(folder, STORED_STATE_CACHE_BYTES);
      storedStates.set(folder, store);
      store.catch(() => storedStates.delete(folder));
    }
    return (await store).browse();
  }

  /**
   * Runs `read` on one subtask's state: as checkpoint `checkpointId` holds it, or live (what the
   * run has now, or once it ended what it left).
   */
  async function readSubtask<T>(
    method: string,
    entry: RunEntry,
    operatorId: string,
    subtask: number,
    checkpointId: number | undefined,
    read: (browser: StoreBrowser, keyGroups: { start: number; end: number }) => Promise<T>,
  ): Promise<T> {
    const elsewhere = entry.run.stateElsewhere;
    if (elsewhere !== undefined) throw new Error(`${method}: ${elsewhere}`);
    // A checkpoint's operator and subtask are checked against the checkpoint, which has them as it was taken.
    if (checkpointId !== undefined) {
      return views.read(entry.run.dirs.checkpointDir, checkpointId, operatorId, subtask, (view) =>
        read(view.browser, view.keyGroups),
      );
    }
    const op = keyedOperator(method, entry, operatorId, subtask);
    const keyGroups = keyGroupRange(subtask, op.parallelism, entry.plan.maxParallelism);
    const unavailable = entry.run.liveStateUnavailable();
    if (unavailable !== undefined) throw new Error(`${method}: ${unavailable}`);
    const store = entry.run.liveStore(op.id, subtask);
    if (store !== undefined) {
      try {
        return await read(await store.browse(), keyGroups);
      } catch (error) {
        // The run may have closed its stores under the read as it ended: then read what it left.
        await Promise.race([
          entry.run.released,
          new Promise((resolve) => setTimeout(resolve, CLOSING_GRACE_MS)),
        ]);
        if (entry.run.active) throw error;
      }
    }
    return read(await storedState(method, entry, op, subtask), keyGroups);
  }

  /** Where a key lives: live by the job's key groups, in a checkpoint as that checkpoint has them. */
  async function locate(
    method: string,
    entry: RunEntry,
    op: PlannedOperator,
    key: unknown,
    side: CompareSide,
  ): Promise<{ keyGroup: number; subtask: number }> {
    const elsewhere = entry.run.stateElsewhere;
    if (elsewhere !== undefined) throw new Error(`${method}: ${elsewhere}`);
    if (side !== 'live') return views.locate(entry.run.dirs.checkpointDir, side, op.id, key);
    return locateKey(key, op.parallelism, entry.plan.maxParallelism);
  }

  async function closeStoredStates(): Promise<void> {
    const open = [...storedStates.values()];
    storedStates.clear();
    await Promise.allSettled(open.map(async (store) => (await store).close()));
  }

  const methods: Pick<RunMethodTable, StateMethod> = {
    'state.page': {
      params: statePageParams,
      run: async (params) => {
        const method = 'state.page';
        const entry = runOf(method, params.runId);
        return readSubtask(
          method,
          entry,
          params.operator,
          params.subtask,
          params.checkpointId,
          (browser, keyGroups) => readStatePage(browser, keyGroups, params),
        );
      },
    },
    'state.checkpoints': {
      params: runIdParams('state.checkpoints'),
      run: async ({ runId }) => {
        const { run } = runOf('state.checkpoints', runId);
        // The job's local checkpoints are not a run on Flink's.
        if (run.stateElsewhere !== undefined)
          return { ids: [], retained: run.job.settings.checkpointsRetained };
        const ids = await new CheckpointStorage(run.dirs.checkpointDir).completedIds();
        return { ids, retained: run.job.settings.checkpointsRetained };
      },
    },
    'state.key': {
      params: stateKeyParams,
      run: async (params) => {
        const method = 'state.key';
        const entry = runOf(method, params.runId);
        const op = keyedOperator(method, entry, params.operator);
        const found: KeyStateView[] = [];
        for (const key of keysOfText(params.key)) {
          const { keyGroup, subtask } = await locate(method, entry, op, key, params.checkpointId ?? 'live');
          const state = await readSubtask(method, entry, op.id, subtask, params.checkpointId, (browser) =>
            readKeyState(browser, keyGroup, key),
          );
          found.push({ key, keyGroup, subtask, ...state });
        }
        return { found };
      },
    },
    'state.elements': {
      params: stateElementsParams,
      run: async (params) => {
        const method = 'state.elements';
        const entry = runOf(method, params.runId);
        const op = keyedOperator(method, entry, params.operator);
        const { keyGroup, subtask } = await locate(
          method,
          entry,
          op,
          params.key,
          params.checkpointId ?? 'live',
        );
        return readSubtask(method, entry, op.id, subtask, params.checkpointId, (browser) =>
          readElements(browser, keyGroup, params.key, params),
        );
      },
    },
    'state.compare': {
      params: stateCompareParams,
      run: async (params) => {
        const method = 'state.compare';
        const entry = runOf(method, params.runId);
        const op = keyedOperator(method, entry, params.operator);
        const [from, to] = await Promise.all([
          locate(method, entry, op, params.key, params.from),
          locate(method, entry, op, params.key, params.to),
        ]);
        const checkpointOf = (side: CompareSide) => (side === 'live' ? undefined : side);
        const states = await readSubtask(
          method,
          entry,
          op.id,
          from.subtask,
          checkpointOf(params.from),
          (fromBrowser) =>
            readSubtask(method, entry, op.id, to.subtask, checkpointOf(params.to), (toBrowser) =>
              compareKeyState(
                { browser: fromBrowser, keyGroup: from.keyGroup },
                { browser: toBrowser, keyGroup: to.keyGroup },
                params.key,
                params,
              ),
            ),
        );
        return {
          key: params.key,
          keyGroup: to.keyGroup,
          fromSubtask: from.subtask,
          toSubtask: to.subtask,
          states,
        };
      },
    },
  };

  return {
    methods,
    closeStoredStates,
    async close() {
      await closeStoredStates();
      await views.close();
    },
  };
}
