// A run of a job in mode "run", driven by the designer: the job as the CLI runs it (on one
// thread or spread over several, runEngine.ts), with its status, live metrics and checkpoints
// sent as host events. Pause holds every thread at a slice boundary; stop is the CLI's clean
// stop (a final checkpoint where checkpoints are on).

import type { CheckpointMetadata } from '../../checkpoint/checkpointMetadata.js';
import type { RunSummary } from '../../deploy/jobRun.js';
import { findKind } from '../../graph/kinds/kindRegistry.js';
import type { RunInfo, RunStatus } from '../../protocol/runProtocol.js';
import {
  checkpointEventOf,
  type DrivenRun,
  type LiveState,
  type RunBasics,
  StatusReportingRun,
} from './drivenRun.js';
import { LongCallStatus } from './longCallStatus.js';
import { PreviewOutput } from './previewOutput.js';
import { openRunEngine, type RunEngine } from './runEngine.js';
import { liveMetrics, MetricsFeed } from './runMetricsFeed.js';
import { WaitStatus } from './waitStatus.js';

/** How often a run on several threads looks at its workers' calls into user code. */
const WATCH_EVERY_MS = 100;

export interface HostRunOptions extends RunBasics {
  readonly restore?: CheckpointMetadata;
  /**
   * Sinks show their records and write nothing. Such a run takes no checkpoints either: one
   * without its sinks' output would make a later restore lose that output.
   */
  readonly previewSinks: boolean;
}

function summaryMessage(summary: RunSummary): string {
  const m = summary.metrics;
  const read = m.operators
    .filter((o) => findKind(o.kind)?.role === 'source')
    // What the sources read (their records in), not what they sent: that counts once per edge.
    .reduce((n, o) => n + o.recordsIn, 0);
  const seconds = (m.elapsedMs / 1000).toFixed(2);
  if (!summary.stopped) return `done: ${read} records from the sources in ${seconds} s`;
  const last = summary.checkpoints.at(-1);
  return last === undefined
    ? `stopped after ${read} records from the sources in ${seconds} s (no checkpoint: the records in flight were completed)`
    : `stopped at checkpoint ${last} after ${read} records from the sources in ${seconds} s; a restart from it goes on from there`;
}

export class HostRun extends StatusReportingRun implements DrivenRun {
  readonly mode = 'run' as const;
  private engine: RunEngine | undefined;
  private feed: MetricsFeed | undefined;
  private preview: PreviewOutput | undefined;
  private stopRequested = false;
  /** A run on several threads: its workers' long calls, shown in the status (runThread.ts shows this thread's). */
  private longCall: LongCallStatus | undefined;
  private watch: NodeJS.Timeout | undefined;
  /** What the run's connectors wait for, in its status while the run is under way. */
  private readonly waitStatus = new WaitStatus((message) => {
    if (!this.active) return;
    if (message === undefined) this.emitStatus();
    else this.options.events.status({ ...this.info(), message });
  });
  /** Resolves when the run has ended, however it ended (its stores closed); never rejects. */
  readonly released: Promise<void>;
  private end!: () => void;

  private constructor(private readonly options: HostRunOptions) {
    super(options);
    this.released = new Promise((resolve) => {
      this.end = resolve;
    });
  }

  /**
   * Opens the job (restoring a checkpoint if asked) and starts it. Resolves once it runs; rejects
   * with the engine's message (naming the operator, file or checkpoint) if it cannot open.
   */
  static async start(options: HostRunOptions): Promise<HostRun> {
    const run = new HostRun(options);
    run.emitStatus();
    await run.open();
    return run;
  }

  protected stepsTaken(): number {
    return 0;
  }

  protected override setStatus(status: RunStatus, message?: string): void {
    super.setStatus(status, message);
    this.longCall?.replaced();
    this.waitStatus.replaced();
  }

  private async open(): Promise<void> {
    const { runId, job, dirs, restore, events } = this.options;
    const preview = this.options.previewSinks ? new PreviewOutput(runId, events.output) : undefined;
    this.preview = preview;
    let engine: RunEngine;
    try {
      engine = await openRunEngine(
        preview === undefined ? job : { ...job, settings: { ...job.settings, checkpointIntervalMs: 0 } },
        {
          jobDir: dirs.jobDir,
          confined: this.options.confined,
          stateDir: dirs.stateDir,
          ...(preview === undefined
            ? { checkpointDir: dirs.checkpointDir }
            : { previewSinks: preview.receive }),
          ...(restore === undefined ? {} : { restore }),
          onCheckpoint: (event) => events.checkpoint(checkpointEventOf(runId, event)),
          onWait: (wait) => this.waitStatus.change(wait),
          ...(this.options.callMarker === undefined ? {} : { callMarker: this.options.callMarker }),
        },
      );
    } catch (error) {
      this.setStatus('failed', (error as Error).message);
      this.end();
      throw error;
    }
    this.engine = engine;
    this.feed = new MetricsFeed(
      () => liveMetrics(runId, engine.plan, engine.metrics()),
      (event) => events.metrics(event),
    );
    this.setStatus('running', this.message);
    this.feed.start();
    if (engine.threads > 1) this.watchCalls(engine);
    // On the next turn: the answer to run.start goes out first, however long user code then runs.
    setImmediate(() => {
      void engine.run().then(
        (summary) => this.finish(summary.stopped ? 'stopped' : 'finished', summaryMessage(summary)),
        (error: unknown) => this.finish('failed', (error as Error).message),
      );
      if (this.stopRequested) engine.stop();
    });
  }

  /**
   * The workers' calls into user code, as the host's thread watches this thread's: a long one
   * shows in the status. Ending a stuck one (a stop, settings.callTimeoutMs) is the parallel
   * run's own (its CallWatch), which fails the run naming it.
   */
  private watchCalls(engine: RunEngine): void {
    const longCall = new LongCallStatus((message) =>
      message === undefined ? this.emitStatus() : this.options.events.status({ ...this.info(), message }),
    );
    this.longCall = longCall;
    this.watch = setInterval(() => {
      const current = this.active ? engine.callInProgress() : undefined;
      longCall.look(current?.call, current?.forMs ?? 0);
    }, WATCH_EVERY_MS);
    this.watch.unref();
  }

  private finish(status: RunStatus, message: string): void {
    clearInterval(this.watch);
    this.preview?.flush();
    this.feed?.stop();
    this.setStatus(status, message);
    this.end();
  }

  private refuse(action: string): never {
    const now = this.stopRequested && this.active ? 'stopping' : this.status;
    throw new Error(
      `cannot ${action} run ${this.options.runId} of job "${this.options.job.name}": it is ${now}`,
    );
  }

  async pause(): Promise<RunInfo> {
    if (this.status === 'paused') return this.info();
    if (this.status !== 'running' || this.engine === undefined || this.stopRequested) this.refuse('pause');
    await this.engine.pause();
    // It may have ended, or been asked to stop, while the threads came to hold.
    if (this.status !== 'running' || this.stopRequested) return this.info();
    this.setStatus('paused');
    this.preview?.flush();
    this.feed?.now();
    return this.info();
  }

  async resume(): Promise<RunInfo> {
    if (this.status === 'running') return this.info();
    if (this.status !== 'paused' || this.engine === undefined) this.refuse('resume');
    this.engine.resume();
    this.setStatus('running');
    return this.info();
  }

  /** The clean stop; resolves with the final status once the run has ended. */
  async stop(): Promise<RunInfo> {
    if (this.active && !this.stopRequested) {
      this.stopRequested = true;
      this.engine?.stop();
      // A stop from pause goes straight on to its final checkpoint: say so.
      if (this.status === 'paused') this.setStatus('running', 'stopping');
    }
    await this.released;
    return this.info();
  }

  /** A subtask's state store while the run has it open. */
  liveStore(operatorId: string, subtask: number): LiveState | undefined {
    return this.active ? this.engine?.liveState(operatorId, subtask) : undefined;
  }

  liveStateUnavailable(): string | undefined {
    return this.status === 'starting' ? `run ${this.runId} is still opening its state` : undefined;
  }

  /** An ended run holds nothing: its stores closed as it ended. */
  async dispose(): Promise<void> {}
}
