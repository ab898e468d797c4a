// A run of a job in mode "run", driven by the designer: the engine's JobRun as the CLI runs it,
// with its status, live metrics and checkpoints sent as host events. Pause holds the scheduler
// at a slice boundary; stop is the CLI's clean stop (a final checkpoint where checkpoints are on).

import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import type { RunSummary } from '../deploy/jobRun.js';
import { JobRun } from '../deploy/jobRun.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { RunInfo, RunStatus } from '../protocol/runProtocol.js';
import { ensureLockdown } from '../sandbox/userCode.js';
import type { KvStore } from '../state/kvStore.js';
import { checkpointEventOf, type DrivenRun, type RunBasics, StatusReportingRun } from './drivenRun.js';
import { PreviewOutput } from './previewOutput.js';
import { liveMetrics, MetricsFeed } from './runMetricsFeed.js';

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
    .reduce((n, o) => n + o.recordsOut, 0);
  const seconds = (m.elapsedMs / 1000).toFixed(2);
  if (!summary.stopped) return `done: ${read} records from the sources in ${seconds} s`;
  const last = summary.checkpoints.at(-1);
  return last === undefined
    ? `stopped after ${read} records from the sources in ${seconds} s (no checkpoint: the records in flight were completed)`
    : `stopped at checkpoint ${last} after ${read} records from the sources in ${seconds} s; a restart from it goes on from there`;
}

export class HostRun extends StatusReportingRun implements DrivenRun {
  readonly mode = 'run' as const;
  private jobRun: JobRun | undefined;
  private feed: MetricsFeed | undefined;
  private preview: PreviewOutput | undefined;
  private stopRequested = false;
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

  private async open(): Promise<void> {
    const { runId, job, dirs, restore, events } = this.options;
    const preview = this.options.previewSinks ? new PreviewOutput(runId, events.output) : undefined;
    this.preview = preview;
    let jobRun: JobRun;
    try {
      ensureLockdown();
      jobRun = await JobRun.open(
        preview === undefined ? job : { ...job, settings: { ...job.settings, checkpointIntervalMs: 0 } },
        {
          jobDir: dirs.jobDir,
          stateDir: dirs.stateDir,
          ...(preview === undefined
            ? { checkpointDir: dirs.checkpointDir }
            : { previewSinks: preview.receive }),
          ...(restore === undefined ? {} : { restore }),
          onCheckpoint: (event) => events.checkpoint(checkpointEventOf(runId, event)),
          ...(this.options.callMarker === undefined ? {} : { callMarker: this.options.callMarker }),
        },
      );
    } catch (error) {
      this.setStatus('failed', (error as Error).message);
      this.end();
      throw error;
    }
    this.jobRun = jobRun;
    this.feed = new MetricsFeed(
      () => liveMetrics(runId, jobRun.plan, jobRun.metrics(), jobRun.edgeFill()),
      (event) => events.metrics(event),
    );
    this.setStatus('running', this.message);
    this.feed.start();
    // On the next turn: the answer to run.start goes out first, however long user code then runs.
    setImmediate(() => {
      void jobRun.run().then(
        (summary) => this.finish(summary.stopped ? 'stopped' : 'finished', summaryMessage(summary)),
        (error: unknown) => this.finish('failed', (error as Error).message),
      );
      if (this.stopRequested) jobRun.stop();
    });
  }

  private finish(status: RunStatus, message: string): void {
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
    if (this.status !== 'running' || this.jobRun === undefined || this.stopRequested) this.refuse('pause');
    this.jobRun.pause();
    this.setStatus('paused');
    this.preview?.flush();
    this.feed?.now();
    return this.info();
  }

  async resume(): Promise<RunInfo> {
    if (this.status === 'running') return this.info();
    if (this.status !== 'paused' || this.jobRun === undefined) this.refuse('resume');
    this.jobRun.resume();
    this.setStatus('running');
    return this.info();
  }

  /** The clean stop; resolves with the final status once the run has ended. */
  async stop(): Promise<RunInfo> {
    if (this.active && !this.stopRequested) {
      this.stopRequested = true;
      this.jobRun?.stop();
      // A stop from pause goes straight on to its final checkpoint: say so.
      if (this.status === 'paused') this.setStatus('running', 'stopping');
    }
    await this.released;
    return this.info();
  }

  /** A subtask's state store while the run has it open. */
  liveStore(operatorId: string, subtask: number): KvStore | undefined {
    return this.active ? this.jobRun?.stateStore(operatorId, subtask) : undefined;
  }

  liveStateUnavailable(): string | undefined {
    return this.status === 'starting' ? `run ${this.runId} is still opening its state` : undefined;
  }

  /** An ended run holds nothing: JobRun closed its stores as it ended. */
  async dispose(): Promise<void> {}
}
