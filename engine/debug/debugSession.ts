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
//                                     `emitted`, or ("received") of the record it took (at a
//                                     sink step, 0 is that one too: the record it wrote)
//   session.metrics()                 JobRun's metrics of the run as it stands
//   session.previewOutput()           with previewSinks, what the sinks received (nothing is written)
//   session.stateStore()              as JobRun's, for the live panels
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
// The run it steps, one unit of the engine's work at a time, is steppedRun.ts's, which also says
// how checkpoints are spaced: by steps, never by the clock, so a replay takes them at the same
// steps.
//
// Stepping back: see timeTravel.ts. The run is saved in memory every few units of work (state is
// rolled back by a journal, not copied; a sink's part files are cut back), restored, and
// replayed to the step before; the steps replayed, and those stepped through again afterwards,
// are checked against what they showed the first time. Where no saved point is kept that far
// back, where the run cannot be put back in place (a sink's published part is gone), or where a
// step done again differs (user code keeping state in top-level variables, which no save holds),
// the job is opened again and replayed from its start.
import { isDeepStrictEqual } from 'node:util';
import { JobError } from '../graph/jobError.js';
import type { JobMetrics } from '../metrics/jobMetrics.js';
import type { Breakpoint, BreakpointProblem, StepView, TraceView } from '../protocol/runProtocol.js';
import type { CallOwner } from '../runtime/callMarker.js';
import type { Envelope } from '../runtime/envelope.js';
import { describeUserThrow, ensureLockdown } from '../sandbox/userCode.js';
import type { KvStore } from '../state/kvStore.js';
import { Breakpoints, takesRecords } from './breakpoints.js';
import type { SinkPreview } from './previewRecords.js';
import { SeqWindow } from './seqWindow.js';
import { SteppedRun, type SteppedRunOptions } from './steppedRun.js';
import type { Capture, RecordedStep, RecordFrom } from './stepRecorder.js';

export interface DebugSessionOptions extends SteppedRunOptions {
  readonly breakpoints?: readonly Breakpoint[];
}

/**
 * Where continue() stops besides a breakpoint, pause() and the end of the job: `nextOperator`
 * also at the first record step (a record delivered, or made by a source) of another operator
 * than the current step's.
 */
export type ContinueTo = 'breakpoint' | 'nextOperator';

/** continue() gives the event loop a turn this often, so that pause() and metrics get through. */
const YIELD_EVERY_MS = 10;
/** Views of this many of the last steps are kept, to check a replay against them. */
const VIEWS_KEPT = 10_000;
/** A replay copies values (full views) only this close to where it stops: a source's slice at least. */
const FULL_CAPTURE_STEPS = 1024;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Who is in a condition's call: a promise it leaves rejected fails the run naming the breakpoint. */
function conditionOwner(breakpoint: string, operator: string): CallOwner {
  return {
    operator: { id: operator },
    failure: (error, _envelope, context) =>
      new JobError(
        `the condition of breakpoint "${breakpoint}" failed${context === undefined ? '' : `: ${context}`}: ${describeUserThrow(error, `breakpoint ${breakpoint}`).message}`,
      ),
  };
}

/** Two views of one step, apart from the breakpoint that stopped there. */
function sameStep(a: StepView, b: StepView): boolean {
  const { breakpoint: _a, ...left } = a;
  const { breakpoint: _b, ...right } = b;
  return isDeepStrictEqual(left, right);
}

export class DebugSession {
  /** The engine's side: the run, the steps done, the saved points, the traces and the preview. */
  private readonly stepped: SteppedRun;
  private readonly views = new SeqWindow<StepView>(VIEWS_KEPT);
  private readonly breakpoints = new Breakpoints();
  /** Where the record of the step advance() gave last was read from (a condition names it). */
  private from: RecordFrom | undefined;
  /**
   * The step shown last (the last one done is stepped.executed: a source's slice is done before
   * it is all shown), and the steps done but not shown yet.
   */
  private shown = 0;
  private pending: RecordedStep[] = [];
  private closed = false;
  private pauseRequested = false;
  private queue: Promise<unknown> = Promise.resolve();
  breakpointProblems: BreakpointProblem[] = [];

  private constructor(private readonly options: DebugSessionOptions) {
    this.stepped = new SteppedRun(options);
  }

  /** The breakpoint this step hits, its conditions marked as calls into user code. */
  private hit(view: StepView): string | undefined {
    const marker = this.options.callMarker;
    if (marker === undefined) return this.breakpoints.hit(view);
    return this.breakpoints.hit(view, (breakpoint, stepView, condition) => {
      const subtask = this.stepped.run.subtasks.find(
        (s) => s.operator.id === stepView.operator && s.subtask === stepView.subtask,
      );
      if (subtask === undefined) return condition();
      const from = this.from;
      const record = from === undefined ? undefined : ({ ...from } as Envelope);
      marker.enterCondition(
        subtask.ordinal,
        conditionOwner(breakpoint, stepView.operator),
        record,
        breakpoint,
      );
      try {
        return condition();
      } finally {
        marker.leave();
      }
    });
  }

  /** Opens the job for debugging; it fails as `pipewright run` would fail to open it. */
  static async open(options: DebugSessionOptions): Promise<DebugSession> {
    ensureLockdown();
    const session = new DebugSession(options);
    await session.stepped.open();
    session.breakpointProblems = session.setBreakpoints(options.breakpoints ?? []);
    return session;
  }

  /** The number of the current step: 0 before the first. */
  get position(): number {
    return this.shown;
  }

  /** How many step backs had to open the job again and replay it from the start (see above). */
  get replaysFromStart(): number {
    return this.stepped.replaysFromStart;
  }

  /** Whether the job has run to its end (at the last step). */
  get ended(): boolean {
    return this.stepped.finished && this.pending.length === 0;
  }

  step(): Promise<StepView | undefined> {
    return this.exclusive(async () => {
      this.checkUsable();
      const view = await this.advance();
      return view === undefined ? undefined : this.show(view, this.hit(view));
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
        const hit = this.hit(view);
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
      if (this.shown === 0 && this.stepped.failure === undefined) return undefined;
      return this.goTo(Math.max(0, this.shown - 1));
    });
  }

  setBreakpoints(list: readonly Breakpoint[]): BreakpointProblem[] {
    return this.breakpoints.set(list, this.stepped.run.plan);
  }

  trace(step: number, emitted: number | 'received'): TraceView {
    if (!Number.isInteger(step) || step < 1 || step > this.shown) {
      throw new Error(`there is no step ${step} to trace (the run is at step ${this.shown})`);
    }
    return this.stepped.records.trace(step, emitted);
  }

  metrics(): JobMetrics {
    return this.stepped.run.metrics();
  }

  previewOutput(): SinkPreview[] {
    return this.stepped.preview.list();
  }

  /** A subtask's keyed state store, as the run has it now (JobRun.stateStore). */
  stateStore(operatorId: string, subtask: number): KvStore | undefined {
    return this.stepped.run.stateStore(operatorId, subtask);
  }

  close(): Promise<void> {
    this.pauseRequested = true;
    return this.exclusive(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.stepped.run.close();
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => {});
    return result;
  }

  private checkUsable(): void {
    if (this.closed) throw new Error('the debug session is closed');
    const failure = this.stepped.failure;
    if (failure !== undefined) {
      throw new Error(`${failure.message} (the run cannot go on from there: step back)`);
    }
  }

  /** The next step, done if it has not been yet. */
  private async advance(): Promise<StepView | undefined> {
    let lastYield = performance.now();
    while (this.pending.length === 0) {
      if (this.stepped.finished) return undefined;
      const steps = await this.stepped.executeUnit('full');
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
    this.from = step.from;
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
    const unitSteps = this.stepped.lastUnit;
    const inUnit = unitSteps.findIndex((step) => step.seq === target);
    if (inUnit >= 0 && this.stepped.failure === undefined && unitSteps[inUnit]!.view !== undefined) {
      this.pending = unitSteps.slice(inUnit + 1);
      this.shown = target;
      return this.show(unitSteps[inUnit]!.view!, shownBefore?.breakpoint);
    }
    const memento = this.stepped.savedBefore(target);
    let replayed: { view: StepView | undefined; diverged: boolean };
    if (memento !== undefined && (await this.stepped.restore(memento))) {
      this.pending = [];
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
    this.stepped.records.truncateAfter(this.stepped.executed);
    const view = replayed.view;
    if (view === undefined) return undefined;
    return this.show(view, shownBefore?.breakpoint);
  }

  /** Opens the job again, to replay it from the start. */
  private async reopen(): Promise<void> {
    await this.stepped.reopen();
    this.pending = [];
  }

  /** Does the units up to step `target`, comparing each step replayed with what it showed before. */
  private async replayTo(target: number): Promise<{ view: StepView | undefined; diverged: boolean }> {
    let view: StepView | undefined;
    let diverged = false;
    const stepped = this.stepped;
    while (stepped.executed < target) {
      const capture: Capture = target - stepped.executed <= FULL_CAPTURE_STEPS ? 'full' : 'lineage';
      const steps = await stepped.executeUnit(capture);
      if (steps === undefined) {
        throw new Error(`internal: the replay ended at step ${stepped.executed}, before step ${target}`);
      }
      for (const step of steps) {
        if (step.view === undefined || step.seq > target) continue;
        const before = this.views.get(step.seq);
        if (before !== undefined && !sameStep(before, step.view)) diverged = true;
        if (step.seq === target) view = step.view;
      }
      if (stepped.executed >= target) this.pending = steps.filter((step) => step.seq > target);
    }
    this.shown = target;
    return { view, diverged };
  }
}
