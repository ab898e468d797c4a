// The run-and-debug rows of the host's method table: one run at a time per host, started from the
// designer's text of a job and driven by id; its state browsed live or as a checkpoint holds it
// (stateMethods.ts); the job's completed checkpoints listed for a restart. The last run stays known after it ends,
// so its state and checkpoints can still be read until the next run starts.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { findCheckpoint } from '../../checkpoint/findCheckpoint.js';
import { checkInputFiles } from '../../deploy/inputFileCheck.js';
import { defaultRunDirs, type RunDirsOf } from '../../deploy/runDirs.js';
import { flinkRefusals } from '../../graph/flinkSupport.js';
import { inputFilesOf } from '../../graph/inputFiles.js';
import { planJob } from '../../graph/plan.js';
import type { Problem } from '../../graph/problem.js';
import type { Job } from '../../graph/schema.js';
import { parseJobText } from '../../graph/validation/jsonText.js';
import { validateJobText } from '../../graph/validation/validateJob.js';
import { confinementBreaches, describeBreach } from '../../operators/confinement.js';
import type { RunEvents, RunMethods, RunStartParams } from '../../protocol/runProtocol.js';
import type { CallMarker } from '../../runtime/callMarker.js';
import { CheckpointTimings, listCheckpoints } from '../checkpointHistory.js';
import type { MethodSpec } from '../hostService.js';
import { DebugRun } from './debugRun.js';
import type { DrivenRun, RunEventSink } from './drivenRun.js';
import { FlinkHostRun } from './flinkHostRun.js';
import { HostRun } from './hostRun.js';
import {
  checkpointsParams,
  resumeParams,
  runIdParams,
  runStartParams,
  setBreakpointsParams,
  traceParams,
} from './runParams.js';
import { createStateMethods, type RunEntry } from './stateMethods.js';

export type RunMethodTable = { readonly [M in keyof RunMethods]: MethodSpec<M> };

export type RunEventEmitter = <E extends keyof RunEvents>(event: E, data: RunEvents[E]) => void;

export interface RunService {
  readonly methods: RunMethodTable;
  /** Stops the run (cleanly) and lets go of every store and temporary folder. */
  close(): Promise<void>;
}

type Current = RunEntry;

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

/** What Run on Flink… cannot take: each its one line, before anything is built or submitted. */
function refuseOnFlink(params: RunStartParams, job: Job): void {
  if (params.mode !== 'run')
    throw new Error('run.start: a run on Flink runs in mode "run"; the debugger steps local runs only');
  if (params.previewSinks)
    throw new Error('run.start: a run on Flink writes its sinks; turn preview off to run on Flink');
  if (params.restore !== undefined) {
    throw new Error(
      'run.start: a run on Flink cannot restart from a local checkpoint yet; run it from the beginning',
    );
  }
  // Flink's workers run the code unconfined: a job that reaches outside its folder needs trust
  // there, as `pipewright flink` asks for it (its confinement is the local engine's).
  const breaches = params.trusted === true ? [] : confinementBreaches(job.operators, dirname(params.path));
  if (breaches.length > 0) {
    const more = breaches.length > 1 ? ` (and ${breaches.length - 1} more)` : '';
    throw new Error(
      `run.start: the job is not trusted, and on Flink it would ${describeBreach(breaches[0]!)}${more}: trust it before running it there`,
    );
  }
  const refusals = flinkRefusals(job);
  if (refusals.length > 0)
    throw new Error(`run.start: the job cannot run on Flink yet: ${problemList(refusals)}`);
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
  const timings = new CheckpointTimings();

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

  function runOf(method: string, runId: string): Current {
    if (current !== undefined && current.run.runId === runId) return current;
    const known =
      current !== undefined
        ? `this host's run is ${current.run.runId} (job "${current.run.job.name}")`
        : starting
          ? 'a new run is starting'
          : 'no run has started since the host did';
    throw new Error(`${method}: there is no run ${runId}; ${known}`);
  }

  const state = createStateMethods(runOf);

  function debugRunOf(method: string, runId: string): DebugRun {
    const { run } = runOf(method, runId);
    if (run instanceof DebugRun) return run;
    throw new Error(
      `${method}: run ${run.runId} runs in mode "${run.mode}"; start it in mode "debug" to step, set breakpoints or trace records`,
    );
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
        if (params.flink !== undefined) refuseOnFlink(params, job);
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
          await state.closeStoredStates();
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
          if (params.flink !== undefined) {
            const missing = await checkInputFiles(params.path, inputFilesOf(parseJobText(params.text).value));
            if (missing.length > 0) {
              throw new Error(`run.start: ${missing.map((m) => `${m.message} (${m.path})`).join('; ')}`);
            }
          }
          const run: DrivenRun =
            params.flink !== undefined
              ? FlinkHostRun.start({ ...common, target: params.flink })
              : params.mode === 'debug'
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
    ...state.methods,
  };

  return {
    methods,
    async close() {
      const run = current?.run;
      if (run?.active) await run.stop().catch(() => {});
      await run?.dispose();
      await state.close();
    },
  };
}
