// Run ▸ Run on Flink…: the job submitted to a Flink session cluster, as `pipewright flink
// --cluster` submits it (deploy/flinkSubmission.ts), and followed through Flink's REST API once a
// second into the same panels as a local run: status, each operator's and subtask's records and
// where its time went, backpressure on the edges, checkpoints with their sizes. Stop is Flink's
// stop with a savepoint (the sinks commit what it covers); there is no pause on Flink, and the
// state lives in the cluster's TaskManagers, out of the state browser's reach.
import { ensureFlinkRunner, flinkRunnerFiles } from '../../deploy/flinkBuild.js';
import { ENDED, type FlinkRest, userMessageOf } from '../../deploy/flinkRest.js';
import { prepareFlinkRun, reachCluster, submitToCluster } from '../../deploy/flinkSubmission.js';
import type { FlinkPlan } from '../../graph/flinkPlan.js';
import type { FlinkTarget, RunInfo, RunStatus } from '../../protocol/runProtocol.js';
import { type DrivenRun, type LiveState, type RunBasics, StatusReportingRun } from './drivenRun.js';
import {
  flinkCheckpointEvent,
  flinkMetricsEvent,
  metricIdsOf,
  type VertexOperators,
  type VertexSample,
  vertexOperators,
} from './flinkLiveFigures.js';
import { METRICS_EVERY_MS } from './runMetricsFeed.js';

export interface FlinkHostRunOptions extends RunBasics {
  readonly target: FlinkTarget;
}

/** Flink's REST figures change about once a second (metrics.fetcher.update-interval). */
const POLL_MS = Math.max(METRICS_EVERY_MS, 1000);

export class FlinkHostRun extends StatusReportingRun implements DrivenRun {
  readonly mode = 'run' as const;
  private rest: FlinkRest | undefined;
  private jobId: string | undefined;
  /** The savepoint its stop took: a later run may go on from it. */
  private savepoint: string | undefined;
  private stopRequested = false;
  private stopping: Promise<string | undefined> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();
  /** The run's folder beside the local runs' (.pipewright/NAME/flink/), once prepared. */
  private home: string | undefined;
  /** Checkpoints already sent (Flink lists the latest few again at every poll). */
  private readonly reported = new Set<number>();
  readonly released: Promise<void>;
  private end!: () => void;

  private constructor(private readonly options: FlinkHostRunOptions) {
    super(options);
    this.released = new Promise((resolve) => {
      this.end = resolve;
    });
  }

  /**
   * Answers at once, starting: building the runner (Maven, the first time: minutes) and the
   * upload go on behind the status line, which says each step, and fail the run with their line.
   */
  static start(options: FlinkHostRunOptions): FlinkHostRun {
    const run = new FlinkHostRun(options);
    run.setStatus('starting', `asking the Flink cluster at ${options.target.cluster}`);
    void run.submit().catch(async (error: unknown) => {
      // Following it failed (the cluster stopped answering): a job that may still run there is
      // cancelled, as far as the cluster can be reached, rather than left running unwatched.
      if (run.jobId !== undefined) await run.rest?.cancel(run.jobId).catch(() => {});
      run.finish('failed', (error as Error).message);
    });
    return run;
  }

  override info(): RunInfo {
    return {
      ...super.info(),
      flink: {
        cluster: this.options.target.cluster,
        ...(this.jobId === undefined ? {} : { jobId: this.jobId }),
        ...(this.savepoint === undefined ? {} : { savepoint: this.savepoint }),
      },
    };
  }

  protected stepsTaken(): number {
    return 0;
  }

  private async submit(): Promise<void> {
    const { job, dirs, target } = this.options;
    const setup = await prepareFlinkRun(job, dirs, target);
    this.home = setup.home;
    // A cluster that does not answer is said before Maven runs.
    const cluster = await reachCluster(target.cluster);
    const files = flinkRunnerFiles();
    await ensureFlinkRunner(files, (text) => {
      if (this.status === 'starting') this.setStatus('starting', text);
    });
    if (this.stopRequested) return this.finish('stopped', 'stopped before the job reached the cluster');
    this.setStatus('starting', `submitting job "${job.name}" to ${target.cluster}`);
    const jobId = await submitToCluster(cluster, files, setup.plan);
    const { rest } = cluster;
    this.rest = rest;
    this.jobId = jobId;
    this.setStatus('running', `job ${jobId} at ${target.cluster} (Flink ${cluster.version})`);
    if (this.stopRequested) this.stopWithSavepoint(setup.home);
    await this.follow(rest, jobId, setup.plan, setup.joinSinks);
  }

  /** Polls until the job ends, sending metrics and checkpoints; then its last status. */
  private async follow(
    rest: FlinkRest,
    jobId: string,
    plan: FlinkPlan,
    joinSinks: () => Promise<void>,
  ): Promise<void> {
    let vertices: VertexOperators[] | undefined;
    for (;;) {
      const status = await rest.status(jobId);
      vertices ??= vertexOperators(status.vertices, plan);
      if (ENDED.has(status.state)) break;
      await this.sample(rest, jobId, plan, vertices);
      await new Promise<void>((resolve) => {
        this.timer = setTimeout(resolve, POLL_MS);
      });
    }
    // The last figures: what each operator did in all.
    await this.sample(rest, jobId, plan, vertices).catch(() => {});
    const state = (await rest.status(jobId)).state;
    if (state === 'FINISHED') {
      await joinSinks();
      const savepoint = await this.stopping;
      if (savepoint !== undefined) {
        this.savepoint = savepoint;
        return this.finish('stopped', `stopped with a savepoint at ${savepoint}`);
      }
      return this.finish('finished', `done on Flink at ${this.options.target.cluster}`);
    }
    if (state === 'CANCELED')
      return this.finish('stopped', 'the job was cancelled on the cluster; no sink file was written');
    const trace = await rest.rootException(jobId).catch(() => undefined);
    this.finish(
      'failed',
      trace === undefined
        ? `the job failed on ${this.options.target.cluster} (no reason given)`
        : userMessageOf(trace),
    );
  }

  private async sample(
    rest: FlinkRest,
    jobId: string,
    plan: FlinkPlan,
    vertices: readonly VertexOperators[],
  ) {
    const samples = new Map<string, VertexSample>();
    for (const vertex of vertices) {
      const metrics = await rest.vertexMetrics(jobId, vertex.vertexId, metricIdsOf(vertex));
      samples.set(vertex.vertexId, { metrics, records: await rest.vertexSubtasks(jobId, vertex.vertexId) });
    }
    this.options.events.metrics(
      flinkMetricsEvent(this.runId, plan, vertices, samples, Date.now() - this.startedAt),
    );
    const history = await rest.checkpointHistory(jobId);
    // Oldest first, as they happened; savepoints are the stop's, not the panel's.
    for (const checkpoint of [...history].reverse()) {
      if (
        checkpoint.status === 'IN_PROGRESS' ||
        checkpoint.is_savepoint === true ||
        this.reported.has(checkpoint.id)
      )
        continue;
      this.reported.add(checkpoint.id);
      const subtasks = new Map<string, Awaited<ReturnType<FlinkRest['checkpointSubtasks']>>>();
      for (const vertex of vertices) {
        subtasks.set(
          vertex.vertexId,
          await rest.checkpointSubtasks(jobId, checkpoint.id, vertex.vertexId).catch(() => []),
        );
      }
      this.options.events.checkpoint(flinkCheckpointEvent(this.runId, checkpoint, subtasks, vertices));
    }
  }

  private stopWithSavepoint(home: string): void {
    const rest = this.rest;
    const jobId = this.jobId;
    if (rest === undefined || jobId === undefined || this.stopping !== undefined) return;
    this.setStatus('running', 'stopping with a savepoint');
    this.stopping = (async () => {
      const dir = (await rest.savepointDir().catch(() => undefined)) ?? `${home}/savepoints`;
      return rest.stopWithSavepoint(jobId, dir);
    })().catch((error: unknown) => {
      this.setStatus('running', `the savepoint failed: ${(error as Error).message}`);
      return undefined;
    });
  }

  private finish(status: RunStatus, message: string): void {
    if (!this.active) return;
    clearTimeout(this.timer);
    this.setStatus(status, message);
    this.end();
  }

  async pause(): Promise<RunInfo> {
    throw new Error(
      `cannot pause run ${this.runId}: Flink has no pause; stop it (with a savepoint) and run it again instead`,
    );
  }

  async resume(): Promise<RunInfo> {
    throw new Error(`cannot resume run ${this.runId}: a run on Flink does not pause`);
  }

  /** Flink's stop with a savepoint, a second stop cancels the job; resolves once it has ended. */
  async stop(): Promise<RunInfo> {
    if (this.active && !this.stopRequested) {
      this.stopRequested = true;
      if (this.home !== undefined) this.stopWithSavepoint(this.home);
    } else if (this.active && this.jobId !== undefined) {
      this.setStatus('running', 'cancelling the job');
      await this.rest?.cancel(this.jobId).catch(() => {});
    }
    await this.released;
    return this.info();
  }

  liveStore(_operatorId: string, _subtask: number): LiveState | undefined {
    return undefined;
  }

  liveStateUnavailable(): string | undefined {
    return this.stateElsewhere;
  }

  get stateElsewhere(): string {
    return `run ${this.runId} is on Flink: its state and checkpoints are the cluster's, which the state browser cannot read`;
  }

  async dispose(): Promise<void> {}
}
