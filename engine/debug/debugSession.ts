// A debug run: the job on the same JobRun, Subtask and deterministic executor as `pipewright run`
// on one thread, driven one step at a time. This is the API the host's run service calls:
//
//   const session = await DebugSession.open({ job, jobDir, stateDir, checkpointDir, previewSinks, breakpoints });
//   session.breakpointProblems        breakpoints given to open() that were left out, and why
//   await session.step()              the next step's StepView; undefined once the job has finished
//   await session.continue()          steps until a breakpoint hits (that step, with `breakpoint`
//                                     set), pause() is called (the last step), or the job ends
//                                     (undefined); it gives the event loop a turn every 10 ms
//   await session.continue('nextOperator')
//                                     as continue(), and it also stops at the first step where a
//                                     record reaches (or a source makes one in) an operator other
//                                     than the current step's: "Run to next operator"
//   session.pause()                   stops a continue() after its current step
//   await session.stepBack()          back to the state before the last step: returns the view of
//                                     the step now current, equal to what that step showed
//                                     (undefined at the start)
//   session.setBreakpoints(list)      replaces them; returns the problems (never throws for one)
//   session.trace(step, emitted)      the TraceView of the record step `step` emitted at index
//                                     `emitted` (at a sink step, 0 is the record it wrote)
//   session.metrics()                 JobRun's metrics of the run as it stands
//   session.previewOutput()           with previewSinks, what the sinks received (nothing is written)
//   session.edgeFill(), stateStore()  as JobRun's, for the live panels
//   session.position                  the number of the current step (0 before the first)
//   session.replaysFromStart          how many step backs replayed the run from its start
//   await session.close()             ends the run; nothing more is committed
// step, continue, stepBack and close run one at a time, in the order called. A step that fails
// (user code threw) rejects with the engine's message; step and continue then refuse to go on,
// and stepBack goes back as usual.
//
// What a step is: one item delivered to one subtask (a record, a checkpoint barrier, a
// watermark, an idle mark, an end-of-input), or one record a source made, or one timer fired
// (a firing that a watermark or the end of input starts is a step per timer, before the
// watermark goes on), or a checkpoint taken where no barrier comes, or a loop head told that its
// input has ended. The engine fires a timer as part of its next unit of work, so what the
// timer's records do downstream may be done with it, as a source's slice is. Steps come in the order of a normal run's deliveries but for one thing: a
// source makes one record per slice (DeterministicExecutor.step), so that record goes through the
// whole job, most downstream operator first, before the source reads the next. Other slices are
// a normal run's, taken one item at a time. So records that come by subtasks each reading one channel
// arrive in the order of `pipewright run`; where a subtask reads several (upstream subtasks in
// parallel, a union, a loop's feedback edge) they may interleave otherwise, and a job whose
// results depend on that interleaving may write other records (README, Debugger;
// docs/job-file.md, Order and determinism).
//
// Checkpoints are taken every `checkpointEverySteps` steps that move a record (by default one
// per checkpointIntervalMs such steps: a step stands for 1 ms), never by the clock, so a replay
// takes them at the same steps. Barrier and checkpoint steps do not count: a checkpoint whose
// barriers take more steps than that would otherwise make the next one due at once, and no
// record would move. The spacing also bounds how far back a step back can put the run in place:
// a sink's part files go with the checkpoints retention drops, and a saved point that needs one
// of them can only be reached by a replay from the start.
//
// Stepping back: see timeTravel.ts. The run is saved in memory every few units of work (state is
// rolled back by a journal, not copied; a sink's part files are cut back), restored, and
// replayed to the step before; the steps replayed, and those stepped through again afterwards,
// are checked against what they showed the first time. Where no saved point is kept that far
// back, where the run cannot be put back in place (a sink's published part is gone), or where a
// step done again differs (user code keeping state in top-level variables, which no save holds),
// the job is opened again and replayed from its start.
import { isDeepStrictEqual } from 'node:util';
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import type { JobRun } from '../deploy/jobRun.js';
import { openRun } from '../deploy/openRun.js';
import { JobError } from '../graph/jobError.js';
import type { Job } from '../graph/schema.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import type { Breakpoint, BreakpointProblem, StepView, TraceView } from '../protocol/runProtocol.js';
import type { CallMarker } from '../runtime/callMarker.js';
import type { ScheduledUnit } from '../runtime/deterministicExecutor.js';
import { ensureLockdown } from '../sandbox/userCode.js';
import type { KvStore } from '../state/kvStore.js';
import { Breakpoints, takesRecords } from './breakpoints.js';
import { PreviewRecords, type SinkPreview } from './previewRecords.js';
import { RecordTrace } from './recordTrace.js';
import { SeqWindow } from './seqWindow.js';
import { JournaledStore, StateJournal } from './stateJournal.js';
import { type Capture, type RecordedStep, StepRecorder } from './stepRecorder.js';
import { type Memento, type SessionMarks, TimeTravel } from './timeTravel.js';

export interface DebugSessionOptions {
  readonly job: Job;
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /** The debug run's own state directory (its `subtasks/` folder is emptied when it opens). */
  readonly stateDir: string;
  /** Where its checkpoints go; without it the run takes none. */
  readonly checkpointDir?: string;
  /** Sinks write nothing; what they receive is kept (previewOutput) and shown in the steps. */
  readonly previewSinks: boolean;
  readonly breakpoints?: readonly Breakpoint[];
  /** A checkpoint every this many steps; 0 for none. Default: checkpointIntervalMs / 10. */
  readonly checkpointEverySteps?: number;
  /** Sees each checkpoint as it completes or fails (again when a step back made it be taken again). */
  readonly onCheckpoint?: (event: CheckpointEvent) => void;
  /**
   * Starts from this checkpoint instead of the beginning (in `checkpointDir`): step 1 is the first
   * after it, and stepping back goes no further back than it.
   */
  readonly restore?: CheckpointMetadata;
  /** Marks each call into an operator (JobRun's RunOptions.callMarker). */
  readonly callMarker?: CallMarker;
}

/**
 * Where continue() stops besides a breakpoint, pause() and the end of the job: `nextOperator`
 * also at the first record step (a record delivered, or made by a source) of another operator
 * than the current step's.
 */
export type ContinueTo = 'breakpoint' | 'nextOperator';

/**
 * How much of a normal run's time one record step stands for, to space checkpoints by steps.
 * With each record followed through the job, a default job (1000 ms, 3 retained) keeps the
 * files of its last 2000 to 3000 steps, about as far back as saved points are kept densely
 * (see timeTravel.ts): a step back that far is done in place.
 */
const MS_PER_STEP = 1;
/** continue() gives the event loop a turn this often, so that pause() and metrics get through. */
const YIELD_EVERY_MS = 10;
/** Views of this many of the last steps are kept, to check a replay against them. */
const VIEWS_KEPT = 10_000;
/** A replay copies values (full views) only this close to where it stops: a source's slice at least. */
const FULL_CAPTURE_STEPS = 1024;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Two views of one step, apart from the breakpoint that stopped there. */
function sameStep(a: StepView, b: StepView): boolean {
  const { breakpoint: _a, ...left } = a;
  const { breakpoint: _b, ...right } = b;
  return isDeepStrictEqual(left, right);
}

export class DebugSession {
  private run!: JobRun;
  private timeTravel!: TimeTravel;
  private readonly recorder: StepRecorder;
  private readonly records = new RecordTrace();
  private readonly views = new SeqWindow<StepView>(VIEWS_KEPT);
  private readonly breakpoints = new Breakpoints();
  private readonly preview = new PreviewRecords();
  private readonly checkpointEvery: number;
  private firstCheckpointId: number | undefined;
  /** The step shown last, and the last one done (a source's slice is done before it is all shown). */
  private shown = 0;
  private executed = 0;
  private pending: RecordedStep[] = [];
  /** The steps of the last unit done: going back within it moves nothing in the engine. */
  private unitSteps: RecordedStep[] = [];
  private units = 0;
  /** Steps that moved records (see checkpointEvery), and their count at the last checkpoint asked for. */
  private work = 0;
  private lastCheckpointWork = 0;
  private finished = false;
  private failure: Error | undefined;
  private closed = false;
  private pauseRequested = false;
  private queue: Promise<unknown> = Promise.resolve();
  private restarts = 0;
  breakpointProblems: BreakpointProblem[] = [];

  private constructor(private readonly options: DebugSessionOptions) {
    this.recorder = new StepRecorder((seq) => this.records.get(seq));
    const interval = options.job.settings.checkpointIntervalMs;
    this.checkpointEvery =
      options.checkpointEverySteps ?? (interval > 0 ? Math.max(1, Math.round(interval / MS_PER_STEP)) : 0);
  }

  /** Opens the job for debugging; it fails as `pipewright run` would fail to open it. */
  static async open(options: DebugSessionOptions): Promise<DebugSession> {
    ensureLockdown();
    const session = new DebugSession(options);
    await session.openRun();
    session.breakpointProblems = session.setBreakpoints(options.breakpoints ?? []);
    return session;
  }

  /** The number of the current step: 0 before the first. */
  get position(): number {
    return this.shown;
  }

  /** How many step backs had to open the job again and replay it from the start (see above). */
  get replaysFromStart(): number {
    return this.restarts;
  }

  /** Whether the job has run to its end (at the last step). */
  get ended(): boolean {
    return this.finished && this.pending.length === 0;
  }

  step(): Promise<StepView | undefined> {
    return this.exclusive(async () => {
      this.checkUsable();
      const view = await this.advance();
      return view === undefined ? undefined : this.show(view, this.breakpoints.hit(view));
    });
  }

  continue(to: ContinueTo = 'breakpoint'): Promise<StepView | undefined> {
    return this.exclusive(async () => {
      this.checkUsable();
      this.pauseRequested = false;
      // Before the first step there is no current operator: the first record stops it.
      const from = this.shown === 0 ? undefined : this.views.get(this.shown)?.operator;
      let lastYield = performance.now();
      let last: StepView | undefined;
      for (;;) {
        if (this.pauseRequested && last !== undefined) return last;
        const view = await this.advance();
        if (view === undefined) return undefined;
        const hit = this.breakpoints.hit(view);
        last = this.show(view, hit);
        if (hit !== undefined) return last;
        if (to === 'nextOperator' && takesRecords(view) && view.operator !== from) return last;
        const now = performance.now();
        if (now - lastYield >= YIELD_EVERY_MS) {
          await yieldToEventLoop();
          lastYield = performance.now();
        }
      }
    });
  }

  /** Stops a continue() after the step it is taking. */
  pause(): void {
    this.pauseRequested = true;
  }

  stepBack(): Promise<StepView | undefined> {
    return this.exclusive(async () => {
      if (this.closed) throw new Error('the debug session is closed');
      if (this.shown === 0 && this.failure === undefined) return undefined;
      return this.goTo(Math.max(0, this.shown - 1));
    });
  }

  setBreakpoints(list: readonly Breakpoint[]): BreakpointProblem[] {
    return this.breakpoints.set(list, this.run.plan);
  }

  trace(step: number, emitted: number): TraceView {
    if (!Number.isInteger(step) || step < 1 || step > this.shown) {
      throw new Error(`there is no step ${step} to trace (the run is at step ${this.shown})`);
    }
    return this.records.trace(step, emitted);
  }

  metrics(): JobMetrics {
    return this.run.metrics();
  }

  previewOutput(): SinkPreview[] {
    return this.preview.list();
  }

  /** Per edge, the fill of its fullest channel (JobRun.edgeFill). */
  edgeFill(): Map<string, number> {
    return this.run.edgeFill();
  }

  /** A subtask's keyed state store, as the run has it now (JobRun.stateStore). */
  stateStore(operatorId: string, subtask: number): KvStore | undefined {
    return this.run.stateStore(operatorId, subtask);
  }

  close(): Promise<void> {
    this.pauseRequested = true;
    return this.exclusive(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.run.close();
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => {});
    return result;
  }

  private checkUsable(): void {
    if (this.closed) throw new Error('the debug session is closed');
    if (this.failure !== undefined) {
      throw new Error(`${this.failure.message} (the run cannot go on from there: step back)`);
    }
  }

  private async openRun(): Promise<void> {
    const { job, jobDir, stateDir, checkpointDir, previewSinks, onCheckpoint, restore, callMarker } =
      this.options;
    const journal = new StateJournal();
    this.timeTravel = new TimeTravel(journal);
    const recorder = this.recorder;
    const firstCheckpointId = this.firstCheckpointId;
    this.run = await openRun(job, {
      jobDir,
      stateDir,
      ...(checkpointDir === undefined ? {} : { checkpointDir }),
      ...(previewSinks ? { previewSinks: this.preview.receive } : {}),
      ...(onCheckpoint === undefined ? {} : { onCheckpoint }),
      ...(restore === undefined ? {} : { restore }),
      ...(callMarker === undefined ? {} : { callMarker }),
      observer: recorder.observer((envelope) => this.timeTravel.delivering(envelope)),
      debug: {
        wrapStore: (store) => new JournaledStore(store, journal),
        wrapStateApi: (api, state) => recorder.stateApi(api, state),
        ...(firstCheckpointId === undefined ? {} : { firstCheckpointId }),
      },
    });
    this.firstCheckpointId = this.run.firstCheckpointId;
    recorder.attach(this.run);
    this.executed = 0;
    this.units = 0;
    this.pending = [];
    this.unitSteps = [];
    this.work = 0;
    this.lastCheckpointWork = 0;
    this.finished = false;
    this.failure = undefined;
    this.preview.truncate(new Map());
  }

  private marks(): SessionMarks {
    return { work: this.work, lastCheckpointWork: this.lastCheckpointWork, preview: this.preview.totals() };
  }

  /** One unit of the engine's work, and the steps it made. Undefined once the job has finished. */
  private async executeUnit(capture: Capture): Promise<RecordedStep[] | undefined> {
    const run = this.run;
    this.timeTravel.maybeSave(run, this.units, this.executed, () => this.marks());
    if (this.checkpointEvery > 0 && this.work - this.lastCheckpointWork >= this.checkpointEvery) {
      if (await run.requestCheckpoint()) this.lastCheckpointWork = this.work;
    }
    this.recorder.begin(capture, this.executed);
    let unit: ScheduledUnit | undefined;
    try {
      unit = await run.step();
    } catch (error) {
      this.failure =
        error instanceof JobError
          ? error
          : new JobError(`internal error: ${(error as Error).stack ?? error}`);
      throw this.failure;
    }
    this.units++;
    if (unit === undefined) {
      await run.completeSteps();
      this.finished = true;
      return undefined;
    }
    const steps = this.recorder.end(unit);
    this.unitSteps = steps;
    this.executed += steps.length;
    if (unit.kind === 'produce') this.work += steps.length;
    else if (unit.kind === 'item' && unit.item.type === 'record') this.work += 1;
    for (const step of steps) this.records.add(step.lineage);
    return steps;
  }

  /** The next step, done if it has not been yet. */
  private async advance(): Promise<StepView | undefined> {
    let lastYield = performance.now();
    while (this.pending.length === 0) {
      if (this.finished) return undefined;
      const steps = await this.executeUnit('full');
      if (steps === undefined) return undefined;
      this.pending = steps;
      // A source whose slices make nothing (a generator returning null) can take a while to step.
      if (performance.now() - lastYield >= YIELD_EVERY_MS) {
        await yieldToEventLoop();
        lastYield = performance.now();
      }
    }
    const step = this.pending.shift()!;
    this.shown = step.seq;
    const view = step.view!;
    // A step done again after a step back must show what it showed before. If not, the run put
    // back in place missed something (a variable user code keeps at its top level): replay it.
    const before = this.views.get(step.seq);
    if (before === undefined || sameStep(before, view)) return view;
    await this.reopen();
    return (await this.replayTo(step.seq)).view;
  }

  private show(view: StepView, breakpoint: string | undefined): StepView {
    const shown = breakpoint === undefined ? view : { ...view, breakpoint };
    this.views.set(view.seq, shown);
    return shown;
  }

  /**
   * Back to just after step `target`: the nearest saved point before it restored in place, or
   * the job opened again, then replayed. Returns that step's view as it was shown.
   */
  private async goTo(target: number): Promise<StepView | undefined> {
    const shownBefore = this.views.get(target);
    // Within a source's slice the engine has made the whole slice already: only the view moves.
    const inUnit = this.unitSteps.findIndex((step) => step.seq === target);
    if (inUnit >= 0 && this.failure === undefined && this.unitSteps[inUnit]!.view !== undefined) {
      this.pending = this.unitSteps.slice(inUnit + 1);
      this.shown = target;
      return this.show(this.unitSteps[inUnit]!.view!, shownBefore?.breakpoint);
    }
    const memento = this.timeTravel.before(target);
    let replayed: { view: StepView | undefined; diverged: boolean };
    if (memento !== undefined && (await this.restore(memento))) {
      this.executed = memento.seq;
      this.units = memento.unit;
      this.work = memento.session.work;
      this.lastCheckpointWork = memento.session.lastCheckpointWork;
      this.preview.truncate(memento.session.preview);
      this.pending = [];
      this.unitSteps = [];
      this.finished = false;
      this.failure = undefined;
      replayed = await this.replayTo(target);
      if (replayed.diverged) {
        await this.reopen();
        replayed = await this.replayTo(target);
      }
    } else {
      await this.reopen();
      replayed = await this.replayTo(target);
    }
    // The views after `target` stay: stepping forward again is checked against them.
    this.records.truncateAfter(this.executed);
    const view = replayed.view;
    if (view === undefined) return undefined;
    return this.show(view, shownBefore?.breakpoint);
  }

  /** Puts the run back in place; false when that failed (a sink's published part is gone, ...). */
  private async restore(memento: Memento): Promise<boolean> {
    try {
      await this.timeTravel.restore(this.run, memento, (original, copy) =>
        this.recorder.relink(original, copy),
      );
      return true;
    } catch {
      return false;
    }
  }

  private async reopen(): Promise<void> {
    this.restarts++;
    await this.run.close().catch(() => {});
    await this.openRun();
  }

  /** Does the units up to step `target`, comparing each step replayed with what it showed before. */
  private async replayTo(target: number): Promise<{ view: StepView | undefined; diverged: boolean }> {
    let view: StepView | undefined;
    let diverged = false;
    while (this.executed < target) {
      const capture: Capture = target - this.executed <= FULL_CAPTURE_STEPS ? 'full' : 'lineage';
      const steps = await this.executeUnit(capture);
      if (steps === undefined) {
        throw new Error(`internal: the replay ended at step ${this.executed}, before step ${target}`);
      }
      for (const step of steps) {
        if (step.view === undefined || step.seq > target) continue;
        const before = this.views.get(step.seq);
        if (before !== undefined && !sameStep(before, step.view)) diverged = true;
        if (step.seq === target) view = step.view;
      }
      if (this.executed >= target) this.pending = steps.filter((step) => step.seq > target);
    }
    this.shown = target;
    return { view, diverged };
  }
}
