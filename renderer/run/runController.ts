// The run commands: what Run, Debug, Pause, Resume, Stop, Step, Step back and Restart from
// checkpoint do, over the host's run methods, and how the host's run events reach the run store.
// Requests go one after another (a held-down F10 steps in order, never two steps at once), and
// each checks when its turn comes whether it still applies.
import type {
  Breakpoint,
  FlinkTarget,
  RunInfo,
  RunMethods,
  RunMode,
  RunStartParams,
  StatePage,
  TraceView,
} from '../../engine/protocol/protocol.js';
import { copyNote, templateDataFiles } from '../document/templateData';
import type { DesignerStore } from '../store/designerStore';
import { problemsOf } from '../store/selectors';
import { isRestricted } from '../trust/jobTrust';
import {
  addBreakpoint,
  type BreakpointDraft,
  removeBreakpoint,
  toggleOperatorBreakpoint,
} from './breakpoints';
import { type DocumentFields, documentChange, documentKey, jobEdited } from './documentChange';
import { readCluster, writeCluster } from './flinkTarget';
import type { RunClient } from './runClient';
import { controlsEnabled, isActive } from './runControls';
import { breakpointsOf, type RestartChoice, type RunStore } from './runStore';

export interface RunControllerDeps {
  readonly runs: RunStore;
  readonly designer: DesignerStore;
  readonly client: RunClient;
  /** Saves the document (asking where when it has no file yet); false when it was not saved. */
  readonly save: () => Promise<boolean>;
  readonly message: (title: string, text: string) => Promise<void>;
  /** Asks the host whether the job's input files are there (see job.checkFiles), as a run starts. */
  readonly checkInputFiles?: () => void;
}

/** The state rows that read a key wherever it lives, and the checkpoints there are to read. */
export type KeyStateMethod = 'state.key' | 'state.elements' | 'state.compare' | 'state.checkpoints';

/** A page of one subtask's state, of the live run or of one of its checkpoints. */
export interface StatePageQuery {
  readonly operator: string;
  readonly subtask: number;
  readonly limit: number;
  readonly prefix?: string;
  readonly after?: string;
  readonly checkpointId?: number;
  /** Also count the subtask's keys and bytes per state (a transaction's tables). */
  readonly sizes?: boolean;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createRunController(deps: RunControllerDeps) {
  const { runs, designer, client } = deps;
  const r = () => runs.getState();
  let queue: Promise<unknown> = Promise.resolve();
  /** Events that came while run.start was on its way: the run's id is not known until it answers. */
  let early: { runId: string; apply: () => void }[] | undefined;

  const enqueue = <T>(task: () => Promise<T>): Promise<T | undefined> => {
    const next = queue.then(task, task).catch((error: unknown) => {
      r().setNotice(errorText(error));
      return undefined;
    });
    queue = next;
    return next;
  };

  const controls = () => {
    const s = r();
    return controlsEnabled({
      status: s.status,
      mode: s.mode,
      hasStep: s.step !== undefined,
      onFlink: s.flink !== undefined,
    });
  };

  /** Applies an event of the current run; holds it while a start is unanswered; drops other runs'. */
  const forRun = (runId: string, apply: () => void) => {
    if (early !== undefined) early.push({ runId, apply });
    else if (runId === r().runId) apply();
  };

  /**
   * A debug run started with breakpoints goes on to the first hit once the engine holds it before
   * its first step, whether run.start answers paused or a later status event says so.
   */
  let goOnToBreakpoint: string | undefined;
  const goOnIfHeld = () => {
    const { runId, status, step } = r();
    if (goOnToBreakpoint === undefined || goOnToBreakpoint !== runId || status === 'starting') return;
    goOnToBreakpoint = undefined;
    if (status === 'paused' && step === undefined) void resume();
  };

  const applyInfo = (info: RunInfo) => {
    r().applyInfo(info);
    r().setNotice(undefined);
    goOnIfHeld();
  };

  const offs = [
    client.on('run.status', (info) =>
      forRun(info.runId, () => {
        r().applyInfo(info);
        goOnIfHeld();
      }),
    ),
    client.on('run.step', ({ runId, step }) => forRun(runId, () => r().applyStep(step))),
    client.on('run.metrics', (event) => forRun(event.runId, () => r().applyMetrics(event))),
    client.on('run.checkpoint', (event) => forRun(event.runId, () => r().applyCheckpoint(event))),
    client.on('run.output', ({ runId, operator, records, total }) =>
      forRun(runId, () => r().applyOutput(operator, records, total)),
    ),
  ];

  // Breakpoints follow their document; a run belongs to the document it was started from.
  let fields: DocumentFields = designer.getState();
  offs.push(
    designer.subscribe((state) => {
      const change = documentChange(fields, state);
      const edited = change !== 'switched' && jobEdited(fields, state);
      fields = state;
      if (edited) r().jobChanged();
      if (change === 'saved') r().renameDocument(documentKey(state));
      else if (change === 'switched') {
        const { runId, status } = r();
        if (runId !== undefined && isActive(status))
          void client.request('run.stop', { runId }).catch(() => {});
        r().switchDocument(documentKey(state));
      }
    }),
  );
  r().switchDocument(documentKey(designer.getState()));

  /** The job's file path, after saving it if it has none yet; undefined when the user would not. */
  const savedPath = async (): Promise<string | undefined> => {
    const path = designer.getState().filePath;
    if (path !== undefined) return path;
    const title = String(designer.getState().draft?.name ?? 'untitled');
    const note = copyNote(templateDataFiles(designer.getState()));
    const save = await new Promise<boolean>((resolve) =>
      r().setPrompt({
        kind: 'saveFirst',
        title,
        ...(note === undefined ? {} : { note }),
        resolve: (answer) => {
          r().setPrompt(undefined);
          resolve(answer);
        },
      }),
    );
    if (!save || !(await deps.save())) return undefined;
    return designer.getState().filePath;
  };

  /** The job may run: there is one, it is not in restricted mode, and the engine's validator finds nothing wrong with it. */
  const runnable = async (): Promise<boolean> => {
    const state = designer.getState();
    if (!state.open || state.draft === undefined) return false;
    if (isRestricted(state)) {
      await deps.message(
        'Restricted mode',
        'This job did not come from this designer: trust it first (Trust this job… over the canvas lists what it will do).',
      );
      return false;
    }
    const problems = problemsOf(state).length;
    if (problems === 0) return true;
    await deps.message(
      'Cannot run yet',
      `The job has ${problems} problem${problems === 1 ? '' : 's'} (see the Problems panel); the engine would refuse it.`,
    );
    return false;
  };

  const start = async (mode: RunMode, restore?: RunStartParams['restore'], flink?: FlinkTarget) => {
    if (isActive(r().status) || !(await runnable())) return;
    const path = await savedPath();
    if (path === undefined) return;
    deps.checkInputFiles?.();
    const breakpoints = breakpointsOf(r());
    r().begin(mode);
    early = [];
    let info: RunInfo;
    try {
      info = await client.request('run.start', {
        text: designer.getState().textToSave(),
        path,
        mode,
        // A run on Flink writes its sinks: there is no preview there.
        previewSinks: flink === undefined && r().previewSinks,
        breakpoints,
        // The engine confines a run the user has not trusted (docs/security.md).
        trusted: designer.getState().trust === 'trusted',
        ...(restore === undefined ? {} : { restore }),
        ...(flink === undefined ? {} : { flink }),
      });
    } catch (error) {
      early = undefined;
      runs.setState({ status: 'failed', message: errorText(error) });
      return;
    }
    const held = early;
    early = undefined;
    // Debug stops before the first step; with breakpoints set it goes on to the first hit.
    goOnToBreakpoint = mode === 'debug' && breakpoints.length > 0 ? info.runId : undefined;
    r().applyInfo(info);
    r().setNotice(undefined);
    for (const event of held) if (event.runId === info.runId) event.apply();
    if (mode === 'debug' && breakpoints.length > 0 && isActive(r().status)) {
      // run.start takes the breakpoints but answers no problems with them; setting the same list
      // again does, before the run goes on to the first hit.
      try {
        const answer = await client.request('run.setBreakpoints', { runId: info.runId, breakpoints });
        r().setBreakpointProblems(answer.problems);
      } catch (error) {
        r().setNotice(errorText(error));
      }
    }
    goOnIfHeld();
  };

  const withRun = (
    allowed: (c: ReturnType<typeof controls>) => boolean,
    task: (runId: string) => Promise<void>,
  ) =>
    enqueue(async () => {
      const { runId } = r();
      if (runId === undefined || !allowed(controls())) return;
      await task(runId);
    });

  const pause = () =>
    withRun(
      (c) => c.pause,
      async (runId) => applyInfo(await client.request('run.pause', { runId })),
    );
  const resume = () =>
    withRun(
      (c) => c.resume,
      async (runId) => {
        r().setRunningTo('breakpoint');
        applyInfo(await client.request('run.resume', { runId }));
      },
    );
  const stop = () =>
    withRun(
      (c) => c.stop,
      async (runId) => applyInfo(await client.request('run.stop', { runId })),
    );

  const sendBreakpoints = async (list: readonly Breakpoint[]) => {
    r().setBreakpoints(list);
    const ids = new Set(list.map((bp) => bp.id));
    r().setBreakpointProblems(r().breakpointProblems.filter((p) => ids.has(p.id)));
    const { runId, status } = r();
    if (runId === undefined || !isActive(status)) return;
    await enqueue(async () => {
      const answer = await client.request('run.setBreakpoints', { runId, breakpoints: list });
      r().setBreakpointProblems(answer.problems);
    });
  };

  return {
    /** F5: Run, or Resume when paused. */
    run: () => (r().status === 'paused' ? resume() : enqueue(() => start('run'))),
    debug: () => enqueue(() => start('debug')),
    pause,
    resume,
    stop,
    step: () =>
      withRun(
        (c) => c.step,
        async (runId) => {
          const step = await client.request('run.step', { runId });
          if (step !== undefined) r().applyStep(step);
          r().setNotice(undefined);
        },
      ),
    /** Runs until a record reaches another operator than the current step's (or a breakpoint hits). */
    toNextOperator: () =>
      withRun(
        (c) => c.toNextOperator,
        async (runId) => {
          r().setRunningTo('nextOperator');
          applyInfo(await client.request('run.resume', { runId, until: 'nextOperator' }));
        },
      ),
    stepBack: () =>
      withRun(
        (c) => c.stepBack,
        async (runId) => {
          r().steppedBack(await client.request('run.stepBack', { runId }));
          r().setNotice(undefined);
        },
      ),
    /** Asks for the cluster (the last one given, remembered) and runs the job there. */
    runOnFlink: () =>
      enqueue(async () => {
        if (!controls().flink || !(await runnable())) return;
        const target = await new Promise<FlinkTarget | undefined>((resolve) =>
          r().setPrompt({
            kind: 'flink',
            cluster: readCluster(),
            ...(r().flink?.savepoint === undefined ? {} : { savepoint: r().flink?.savepoint }),
            resolve: (answer) => {
              r().setPrompt(undefined);
              resolve(answer);
            },
          }),
        );
        if (target === undefined) return;
        writeCluster(target.cluster);
        await start('run', undefined, target);
      }),
    /** Lists the job's completed checkpoints, and starts from the one chosen (stopping a live run first). */
    restart: () =>
      enqueue(async () => {
        if (!controls().restart || !(await runnable())) return;
        const path = await savedPath();
        if (path === undefined) return;
        const all = await client.request('run.checkpoints', { path, text: designer.getState().textToSave() });
        const checkpoints = all.filter((c) => c.status === 'completed').sort((a, b) => b.id - a.id);
        const choice = await new Promise<RestartChoice | undefined>((resolve) =>
          r().setPrompt({
            kind: 'restart',
            checkpoints,
            resolve: (answer) => {
              r().setPrompt(undefined);
              resolve(answer);
            },
          }),
        );
        if (choice === undefined) return;
        const { runId, status } = r();
        if (runId !== undefined && isActive(status)) applyInfo(await client.request('run.stop', { runId }));
        await start(choice.mode, choice.checkpointId);
      }),
    addBreakpoint: (draft: BreakpointDraft) => sendBreakpoints(addBreakpoint(breakpointsOf(r()), draft)),
    removeBreakpoint: (id: string) => sendBreakpoints(removeBreakpoint(breakpointsOf(r()), id)),
    /** The canvas's "Break on this operator": on, or off again. */
    toggleOperatorBreakpoint: (operator: string) =>
      sendBreakpoints(toggleOperatorBreakpoint(breakpointsOf(r()), operator)),
    /** `emitted` "received": the record the step took. */
    trace: (step: number, emitted: number | 'received'): Promise<TraceView> => {
      const { runId } = r();
      if (runId === undefined) return Promise.reject(new Error('There is no run to trace.'));
      return client.request('run.trace', { runId, step, emitted });
    },
    statePage: (params: StatePageQuery): Promise<StatePage> => {
      const { runId } = r();
      if (runId === undefined) return Promise.reject(new Error('There is no run to read state from.'));
      return client.request('state.page', { runId, ...params });
    },
    /** One of the key rows (state.key, state.elements, state.compare, state.checkpoints) of this run. */
    keyState: <M extends KeyStateMethod>(
      method: M,
      params: Omit<RunMethods[M][0], 'runId'>,
    ): Promise<RunMethods[M][1]> => {
      const { runId } = r();
      if (runId === undefined) return Promise.reject(new Error('There is no run to read state from.'));
      return client.request(method, { runId, ...params } as RunMethods[M][0]);
    },
    dispose: () => {
      for (const off of offs) off();
    },
  };
}

export type RunController = ReturnType<typeof createRunController>;
