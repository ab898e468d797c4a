// A run of a job in mode "debug", driven by the designer: the debugger's DebugSession (one step at
// a time, breakpoints, step back, record traces) with its status, steps, live metrics, checkpoints
// and preview output sent as host events. It opens held before its first step (paused, step 0),
// which comes just after the checkpoint it restores if it was started from one; resume continues
// to the next breakpoint (or, until "nextOperator", to the next record step of another operator
// at the latest), and the step it stops at goes out as 'run.step'. At the end of the job
// the session stays open, so the designer can still step back, until the run is stopped or
// another one starts.
import type { CheckpointMetadata } from '../../checkpoint/checkpointMetadata.js';
import { DebugSession } from '../../debug/debugSession.js';
import { type Plan, planJob } from '../../graph/plan.js';
import type {
  Breakpoint,
  BreakpointProblem,
  ResumeUntil,
  RunInfo,
  StepView,
  TraceView,
} from '../../protocol/runProtocol.js';
import type { KvStore } from '../../state/kvStore.js';
import { checkpointEventOf, type DrivenRun, type RunBasics, StatusReportingRun } from './drivenRun.js';
import { PREVIEW_BATCH } from './previewOutput.js';
import { liveMetrics, MetricsFeed } from './runMetricsFeed.js';

export interface DebugRunOptions extends RunBasics {
  /** Sinks show their records and write nothing; such a run takes no checkpoints (see HostRun). */
  readonly previewSinks: boolean;
  readonly breakpoints: readonly Breakpoint[];
  /** Starts held just after this checkpoint instead of before the job's first step. */
  readonly restore?: CheckpointMetadata;
}

function describeProblems(problems: readonly BreakpointProblem[]): string | undefined {
  if (problems.length === 0) return undefined;
  return problems.map((p) => `breakpoint ${p.id} left out: ${p.message}`).join('; ');
}

export class DebugRun extends StatusReportingRun implements DrivenRun {
  readonly mode = 'debug' as const;
  private session: DebugSession | undefined;
  private feed: MetricsFeed | undefined;
  /** The continue() under way after a resume; pause and stop wait for it. */
  private continuing: Promise<void> | undefined;
  /** Records each preview sink had received when its output was last sent. */
  private readonly previewSent = new Map<string, number>();
  private closing: Promise<void> | undefined;
  private isReleased = false;
  readonly released: Promise<void>;
  private release!: () => void;
  private readonly plan: Plan;

  private constructor(private readonly options: DebugRunOptions) {
    super(options);
    this.plan = planJob(options.job);
    this.released = new Promise((resolve) => {
      this.release = () => {
        this.isReleased = true;
        resolve();
      };
    });
  }

  /** Opens the job held before its first step; rejects with the engine's message if it cannot. */
  static async start(options: DebugRunOptions): Promise<DebugRun> {
    const run = new DebugRun(options);
    run.emitStatus();
    await run.open();
    return run;
  }

  protected stepsTaken(): number {
    return this.session?.position ?? 0;
  }

  private async open(): Promise<void> {
    const { runId, job, dirs, previewSinks, breakpoints, events, restore } = this.options;
    let session: DebugSession;
    try {
      session = await DebugSession.open({
        job,
        jobDir: dirs.jobDir,
        confined: this.options.confined,
        stateDir: dirs.stateDir,
        ...(previewSinks ? {} : { checkpointDir: dirs.checkpointDir }),
        previewSinks,
        breakpoints,
        ...(restore === undefined ? {} : { restore }),
        onCheckpoint: (event) => events.checkpoint(checkpointEventOf(runId, event)),
        ...(this.options.callMarker === undefined ? {} : { callMarker: this.options.callMarker }),
      });
    } catch (error) {
      this.setStatus('failed', (error as Error).message);
      this.release();
      throw error;
    }
    this.session = session;
    this.feed = new MetricsFeed(
      () => liveMetrics(runId, this.plan, session.metrics()),
      (event) => {
        events.metrics(event);
        this.sendPreview();
      },
    );
    const notes = [this.message, describeProblems(session.breakpointProblems)].filter((n) => n !== undefined);
    this.setStatus('paused', notes.length === 0 ? undefined : notes.join('; '));
    this.feed.start();
  }

  /** What the preview sinks received since it was last sent, at most a batch per sink. */
  private sendPreview(): void {
    if (!this.options.previewSinks || this.session === undefined) return;
    for (const sink of this.session.previewOutput()) {
      const sent = this.previewSent.get(sink.operator) ?? 0;
      if (sink.total === sent) continue;
      this.previewSent.set(sink.operator, sink.total);
      // After a step back a sink has received fewer: the designer drops what it showed beyond
      // the new total, and what is sent from there on starts again.
      const since = Math.min(sent, sink.total);
      const count = Math.min(sink.total - since, PREVIEW_BATCH, sink.records.length);
      const shown = count === 0 ? [] : sink.records.slice(-count);
      const dropped = sink.total - since - shown.length;
      this.options.events.output({
        runId: this.runId,
        operator: sink.operator,
        records: shown,
        ...(dropped > 0 ? { dropped } : {}),
        total: sink.total,
      });
    }
  }

  private refuse(action: string): never {
    throw new Error(
      `cannot ${action} debug run ${this.runId} of job "${this.job.name}": it is ${this.status}`,
    );
  }

  private usable(action: string): DebugSession {
    if (
      this.session === undefined ||
      this.closing !== undefined ||
      this.status === 'stopped' ||
      this.status === 'failed'
    ) {
      this.refuse(action);
    }
    if (this.status === 'running') {
      throw new Error(
        `cannot ${action} debug run ${this.runId}: it is running to the next breakpoint; pause it first`,
      );
    }
    return this.session;
  }

  /** After a step or a stop of continue(): where the run stands now. */
  private shown(view: StepView | undefined): void {
    const session = this.session!;
    if (view !== undefined) this.options.events.step({ runId: this.runId, step: view });
    this.sendPreview();
    this.feed?.now();
    if (view === undefined && session.ended)
      this.setStatus('finished', `done: the job ended at step ${session.position}`);
    else
      this.setStatus('paused', view?.breakpoint === undefined ? undefined : `breakpoint ${view.breakpoint}`);
  }

  /** A step that failed: the run cannot go on, but it can step back; the request says why. */
  private failedStep(error: unknown): never {
    const message = (error as Error).message;
    this.setStatus('paused', message);
    throw error;
  }

  async step(): Promise<StepView | undefined> {
    const session = this.usable('step');
    let view: StepView | undefined;
    try {
      view = await session.step();
    } catch (error) {
      this.failedStep(error);
    }
    this.shown(view);
    return view;
  }

  async stepBack(): Promise<StepView | undefined> {
    const session = this.usable('step back');
    const view = await session.stepBack();
    this.sendPreview();
    this.feed?.now();
    this.setStatus('paused');
    return view;
  }

  setBreakpoints(list: readonly Breakpoint[]): { problems: BreakpointProblem[] } {
    if (this.session === undefined || this.closing !== undefined) this.refuse('set breakpoints of');
    return { problems: this.session.setBreakpoints(list) };
  }

  trace(step: number, emitted: number | 'received'): TraceView {
    if (this.session === undefined || this.closing !== undefined) this.refuse('trace');
    return this.session.trace(step, emitted);
  }

  /**
   * Continues to the next breakpoint (or the end), or with `nextOperator` also to the next
   * record step of another operator; the answer comes before it gets there.
   */
  async resume(until: ResumeUntil = 'breakpoint'): Promise<RunInfo> {
    if (this.status === 'running') return this.info();
    const session = this.usable('resume');
    if (this.status === 'finished') return this.info();
    this.setStatus('running');
    this.continuing = session.continue(until).then(
      (view) => this.shown(view),
      (error: unknown) => {
        this.setStatus('paused', (error as Error).message);
      },
    );
    void this.continuing.finally(() => {
      this.continuing = undefined;
    });
    return this.info();
  }

  async pause(): Promise<RunInfo> {
    if (this.status === 'paused') return this.info();
    if (this.status !== 'running' || this.session === undefined) this.refuse('pause');
    this.session.pause();
    await this.continuing;
    return this.info();
  }

  async stop(): Promise<RunInfo> {
    if (this.status === 'stopped' || this.status === 'failed') return this.info();
    await this.close();
    const position = this.session?.position ?? 0;
    this.setStatus('stopped', `stopped at step ${position}`);
    return this.info();
  }

  private close(): Promise<void> {
    this.closing ??= (async () => {
      this.session?.pause();
      await this.continuing;
      this.feed?.stop();
      await this.session?.close();
      this.release();
    })();
    return this.closing;
  }

  /** The store as the run has it at the current step; a step back puts it back. */
  liveStore(operatorId: string, subtask: number): KvStore | undefined {
    if (this.session === undefined || this.closing !== undefined) return undefined;
    return this.session.stateStore(operatorId, subtask);
  }

  liveStateUnavailable(): string | undefined {
    if (this.status === 'starting') return `debug run ${this.runId} is still opening its state`;
    // Closing: the stores are going; once released, the folder can be read.
    if (this.closing !== undefined && !this.isReleased) return `debug run ${this.runId} is closing its state`;
    return undefined;
  }

  async dispose(): Promise<void> {
    await this.close();
  }
}
