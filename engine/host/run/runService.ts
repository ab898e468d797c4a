// The run-and-debug rows of the host's method table: one run at a time per host, started from the
// designer's text of a job and driven by id; its state browsed live or as a checkpoint holds it;
// the job's completed checkpoints listed for a restart. The last run stays known after it ends,
// so its state and checkpoints can still be read until the next run starts.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findCheckpoint } from '../../checkpoint/findCheckpoint.js';
import { hasKeyedState } from '../../deploy/jobRun.js';
import { defaultRunDirs, type RunDirsOf } from '../../deploy/runDirs.js';
import { keyGroupRange } from '../../graph/keyGroups.js';
import { type Plan, type PlannedOperator, planJob } from '../../graph/plan.js';
import type { Problem } from '../../graph/problem.js';
import { parseJobText } from '../../graph/validation/jsonText.js';
import { validateJobText } from '../../graph/validation/validateJob.js';
import type { RunEvents, RunMethods, StatePage } from '../../protocol/runProtocol.js';
import type { CallMarker } from '../../runtime/callMarker.js';
import { LevelKvStore } from '../../state/levelKvStore.js';
import type { StoreBrowser } from '../../state/storeBrowser.js';
import { CheckpointTimings, listCheckpoints } from '../checkpointHistory.js';
import { CheckpointViews } from '../checkpointViews.js';
import type { MethodSpec } from '../hostService.js';
import { readStatePage } from '../stateBrowser.js';
import { DebugRun } from './debugRun.js';
import type { DrivenRun, RunEventSink } from './drivenRun.js';
import { HostRun } from './hostRun.js';
import {
  checkpointsParams,
  resumeParams,
  runIdParams,
  runStartParams,
  setBreakpointsParams,
  statePageParams,
  traceParams,
} from './runParams.js';

export type RunMethodTable = { readonly [M in keyof RunMethods]: MethodSpec<M> };

export type RunEventEmitter = <E extends keyof RunEvents>(event: E, data: RunEvents[E]) => void;

export interface RunService {
  readonly methods: RunMethodTable;
  /** Stops the run (cleanly) and lets go of every store and temporary folder. */
  close(): Promise<void>;
}

/** A stored state is read a page at a time: a small read cache is plenty. */
const STORED_STATE_CACHE_BYTES = 4 * 1024 * 1024;
/** How long a page read that failed waits to see whether the run was just closing its stores. */
const CLOSING_GRACE_MS = 200;

interface Current {
  readonly run: DrivenRun;
  readonly plan: Plan;
}

function problemList(problems: readonly Problem[]): string {
  const shown = problems.slice(0, 10).map((p) => `${p.message} (${p.path})`);
  const more = problems.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/** The job's name, for where its checkpoints are; an invalid job still has one if its JSON names it. */
function jobNameOf(text: string, path: string): string {
  const { job, problems } = validateJobText(text);
  if (job !== undefined) return job.name;
  const name = (parseJobText(text).value as { name?: unknown } | undefined)?.name;
  if (typeof name === 'string' && name.length > 0) return name;
  throw new Error(
    `run.checkpoints: the job in ${path} has no name to find its checkpoints by: ${problemList(problems)}`,
  );
}

/**
 * `runDirs` says where a job's runs keep their state and checkpoints: beside the job file (the
 * CLI's default, and the browser form's) unless the host is told otherwise.
 */
export function createRunService(
  emit: RunEventEmitter,
  runDirs: RunDirsOf = defaultRunDirs,
  /** Given to every run (runWorker.ts: the host's thread reads it to stop a stuck run). */
  callMarker?: CallMarker,
): RunService {
  let current: Current | undefined;
  let starting = false;
  const views = new CheckpointViews();
  const timings = new CheckpointTimings();
  /** LevelDB state a run left behind, opened for reading once the run has ended. */
  const storedStates = new Map<string, Promise<LevelKvStore>>();

  /** A run's events go to every client; its checkpoints' timings are kept for the checkpoint list. */
  function eventsFor(checkpointDir: string): RunEventSink {
    return {
      status: (info) => emit('run.status', info),
      metrics: (event) => emit('run.metrics', event),
      checkpoint: (event) => {
        timings.remember(checkpointDir, event);
        emit('run.checkpoint', event);
      },
      output: (event) => emit('run.output', event),
      step: (event) => emit('run.step', event),
    };
  }

  async function closeStoredStates(): Promise<void> {
    const open = [...storedStates.values()];
    storedStates.clear();
    await Promise.allSettled(open.map(async (store) => (await store).close()));
  }

  function runOf(method: string, runId: string): Current {
    if (current !== undefined && current.run.runId === runId) return current;
    const known =
      current === undefined
        ? 'no run has started since the host did'
        : `this host's run is ${current.run.runId} (job "${current.run.job.name}")`;
    throw new Error(`${method}: there is no run ${runId}; ${known}`);
  }

  function debugRunOf(method: string, runId: string): DebugRun {
    const { run } = runOf(method, runId);
    if (run instanceof DebugRun) return run;
    throw new Error(
      `${method}: run ${run.runId} runs in mode "${run.mode}"; start it in mode "debug" to step, set breakpoints or trace records`,
    );
  }

  function keyedOperator(entry: Current, operatorId: string, subtask: number): PlannedOperator {
    const { plan, run } = entry;
    const op = plan.byId.get(operatorId);
    if (op === undefined)
      throw new Error(`state.page: job "${run.job.name}" has no operator "${operatorId}"`);
    if (!hasKeyedState(op)) {
      throw new Error(
        `state.page: operator "${op.id}" keeps no keyed state (only operators with code whose every input is hash-partitioned do)`,
      );
    }
    if (subtask >= op.parallelism) {
      throw new Error(
        `state.page: operator "${op.id}" has ${op.parallelism} subtask${op.parallelism === 1 ? '' : 's'} (0 to ${op.parallelism - 1}); there is no subtask ${subtask}`,
      );
    }
    return op;
  }

  /** The state an ended run left in its state folder (LevelDB only: the heap's went with the run). */
  async function storedState(entry: Current, op: PlannedOperator, subtask: number): Promise<StoreBrowser> {
    const { run } = entry;
    if (run.job.settings.stateBackend !== 'level') {
      throw new Error(
        `state.page: run ${run.runId} has ended and its state was on the heap (stateBackend "memory"); only its checkpoints can still be read`,
      );
    }
    const folder = join(run.dirs.stateDir, 'subtasks', `${op.id}-${subtask}`);
    let store = storedStates.get(folder);
    if (store === undefined) {
      if (!existsSync(folder)) {
        throw new Error(
          `state.page: there is no state of operator "${op.id}" subtask ${subtask} in ${folder}`,
        );
      }
      store = LevelKvStore.open(folder, STORED_STATE_CACHE_BYTES);
      storedStates.set(folder, store);
      store.catch(() => storedStates.delete(folder));
    }
    return (await store).browse();
  }

  async function livePage(entry: Current, params: RunMethods['state.page'][0]): Promise<StatePage> {
    const op = keyedOperator(entry, params.operator, params.subtask);
    const keyGroups = keyGroupRange(params.subtask, op.parallelism, entry.plan.maxParallelism);
    const unavailable = entry.run.liveStateUnavailable();
    if (unavailable !== undefined) throw new Error(`state.page: ${unavailable}`);
    const store = entry.run.liveStore(op.id, params.subtask);
    if (store !== undefined) {
      try {
        return await readStatePage(await store.browse(), keyGroups, params);
      } catch (error) {
        // The run may have closed its stores under the read as it ended: then read what it left.
        await Promise.race([
          entry.run.released,
          new Promise((resolve) => setTimeout(resolve, CLOSING_GRACE_MS)),
        ]);
        if (entry.run.active) throw error;
      }
    }
    return readStatePage(await storedState(entry, op, params.subtask), keyGroups, params);
  }

  const methods: RunMethodTable = {
    'run.start': {
      params: runStartParams,
      run: async (params) => {
        if (starting) throw new Error('run.start: another run is starting; one run at a time');
        if (current?.run.active) {
          const { run } = current;
          throw new Error(
            `run.start: run ${run.runId} of job "${run.job.name}" is still ${run.info().status}; stop it before starting another (one run at a time)`,
          );
        }
        const { job, problems } = validateJobText(params.text, { jobDir: dirname(params.path) });
        if (job === undefined) {
          throw new Error(
            `run.start: the job in ${params.path} is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problemList(problems)}`,
          );
        }
        // Relative paths in the job resolve against its folder, and runs may be kept beside it.
        if (!existsSync(dirname(params.path))) {
          throw new Error(`run.start: the folder of ${params.path} does not exist; save the job first`);
        }
        if (params.previewSinks && params.restore !== undefined) {
          throw new Error(
            'run.start: a run with preview sinks writes nothing, checkpoints included, so it cannot restart from one; turn preview off to restart from a checkpoint',
          );
        }
        starting = true;
        try {
          const dirs = runDirs(params.path, job.name);
          const notes: string[] = params.previewSinks
            ? ['preview: sinks write nothing and no checkpoints are taken']
            : [];
          let restore: Awaited<ReturnType<typeof findCheckpoint>>['checkpoint'];
          if (params.restore !== undefined) {
            const found = await findCheckpoint(dirs.checkpointDir, params.restore, (text) =>
              notes.push(text),
            );
            if (found.error !== undefined) throw new Error(`run.start: ${found.error}`);
            restore = found.checkpoint;
          }
          // The new run empties the state folder; nothing may hold it open.
          const previous = current?.run;
          current = undefined;
          await previous?.dispose();
          await closeStoredStates();
          const plan = planJob(job);
          const common = {
            runId: randomUUID(),
            job,
            dirs,
            confined: params.trusted !== true,
            previewSinks: params.previewSinks,
            events: eventsFor(dirs.checkpointDir),
            ...(callMarker === undefined ? {} : { callMarker }),
            ...(notes.length === 0 ? {} : { note: notes.join('; ') }),
            ...(restore === undefined ? {} : { restoredFrom: restore.id }),
          };
          const run: DrivenRun =
            params.mode === 'debug'
              ? await DebugRun.start({
                  ...common,
                  breakpoints: params.breakpoints ?? [],
                  ...(restore === undefined ? {} : { restore }),
                })
              : await HostRun.start({ ...common, ...(restore === undefined ? {} : { restore }) });
          current = { run, plan };
          return run.info();
        } finally {
          starting = false;
        }
      },
    },
    'run.pause': {
      params: runIdParams('run.pause'),
      run: async ({ runId }) => runOf('run.pause', runId).run.pause(),
    },
    'run.resume': {
      params: resumeParams,
      run: async ({ runId, until }) =>
        until === 'nextOperator'
          ? debugRunOf('run.resume', runId).resume(until)
          : runOf('run.resume', runId).run.resume(),
    },
    'run.stop': {
      params: runIdParams('run.stop'),
      run: ({ runId }) => runOf('run.stop', runId).run.stop(),
    },
    'run.step': {
      params: runIdParams('run.step'),
      run: ({ runId }) => debugRunOf('run.step', runId).step(),
    },
    'run.stepBack': {
      params: runIdParams('run.stepBack'),
      run: ({ runId }) => debugRunOf('run.stepBack', runId).stepBack(),
    },
    'run.setBreakpoints': {
      params: setBreakpointsParams,
      run: async ({ runId, breakpoints }) =>
        debugRunOf('run.setBreakpoints', runId).setBreakpoints(breakpoints),
    },
    'run.trace': {
      params: traceParams,
      run: async ({ runId, step, emitted }) => debugRunOf('run.trace', runId).trace(step, emitted),
    },
    'run.checkpoints': {
      params: checkpointsParams,
      run: ({ path, text }) => listCheckpoints(runDirs(path, jobNameOf(text, path)).checkpointDir, timings),
    },
    'state.page': {
      params: statePageParams,
      run: async (params) => {
        const entry = runOf('state.page', params.runId);
        if (params.checkpointId === undefined) return livePage(entry, params);
        return views.read(
          entry.run.dirs.checkpointDir,
          params.checkpointId,
          params.operator,
          params.subtask,
          (view) => readStatePage(view.browser, view.keyGroups, params),
        );
      },
    },
  };

  return {
    methods,
    async close() {
      const run = current?.run;
      if (run?.active) await run.stop().catch(() => {});
      await run?.dispose();
      await closeStoredStates();
      await views.close();
    },
  };
}
