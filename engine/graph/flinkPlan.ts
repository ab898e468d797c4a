// The plan `pipewright flink` hands the Java runner (flink/PROTOCOL.md, "The plan"): the job's own
// operators and edges, file paths made absolute, each operator's parallelism as the run uses it.
// Pure, so the same plan comes from the CLI and (later) the designer.
import { findKind } from './kinds/kindRegistry.js';
import type { Job } from './schema.js';

export const FLINK_PLAN_FORMAT = 'pipewright.flink-plan/1';

/** FileSink commits only on checkpoints: a job with checkpoints off still takes one this often. */
export const FLINK_DEFAULT_CHECKPOINT_MS = 1000;

/** Records in a worker's batch, and how long the first of them waits at most for the rest. */
export const FLINK_BATCH = { records: 1000, latencyMs: 100 } as const;

/** In `worker.command`, the path of the worker the runner jar carries, which the runner writes out. */
export const FLINK_WORKER_PLACEHOLDER = '{worker}';

/**
 * The plan's worker command: the jar's own worker (so no TaskManager needs this checkout), run by
 * the `node` on a cluster's TaskManagers' PATH, or on the embedded MiniCluster by the very node
 * running the CLI (`execPath`: the one the user chose to run Pipewright with, PATH or not).
 */
export function flinkWorkerCommand(onCluster: boolean, execPath: string): string[] {
  return [onCluster ? 'node' : execPath, FLINK_WORKER_PLACEHOLDER];
}

export interface FlinkPlan {
  readonly format: typeof FLINK_PLAN_FORMAT;
  readonly jobName: string;
  readonly maxParallelism: number;
  readonly checkpointIntervalMs: number;
  readonly batch: { readonly records: number; readonly latencyMs: number };
  readonly worker: { readonly command: readonly string[] };
  readonly operators: readonly Job['operators'][number][];
  readonly edges: readonly Job['edges'][number][];
  /** Per sink.jsonl: the folder its FileSink writes part files into. */
  readonly sinkDirs: Readonly<Record<string, string>>;
  /** Where Flink keeps checkpoints; absent: the runner's own temporary folder. */
  readonly checkpointDir?: string;
  /** A savepoint (or retained checkpoint) the job starts from: `--from-savepoint`. */
  readonly savepoint?: string;
}

export interface FlinkPlanOptions {
  /** A file param (as written, relative to the job's folder) made absolute. */
  readonly resolvePath: (path: string) => string;
  /** The folder a sink.jsonl's part files go to, given its absolute path. */
  readonly sinkDir: (path: string) => string;
  readonly workerCommand: readonly string[];
  /** --parallelism: every operator's parallelism, in place of the job's. */
  readonly parallelism?: number;
  readonly checkpointDir?: string;
  readonly savepoint?: string;
}

export function flinkPlan(job: Job, options: FlinkPlanOptions): FlinkPlan {
  const sinkDirs: Record<string, string> = {};
  const operators = job.operators.map((operator) => {
    const fileParams = findKind(operator.kind)?.fileParams ?? {};
    const params: Record<string, unknown> = { ...(operator.params as Record<string, unknown>) };
    for (const param of Object.keys(fileParams)) {
      const path = params[param];
      if (typeof path === 'string') params[param] = options.resolvePath(path);
    }
    if (operator.kind === 'sink.jsonl') sinkDirs[operator.id] = options.sinkDir(params.path as string);
    return {
      ...operator,
      parallelism: options.parallelism ?? operator.parallelism,
      params,
    } as Job['operators'][number];
  });
  const interval = job.settings.checkpointIntervalMs;
  return {
    format: FLINK_PLAN_FORMAT,
    jobName: job.name,
    maxParallelism: job.settings.maxParallelism,
    checkpointIntervalMs: interval > 0 ? interval : FLINK_DEFAULT_CHECKPOINT_MS,
    batch: { ...FLINK_BATCH },
    worker: { command: [...options.workerCommand] },
    operators,
    edges: job.edges,
    sinkDirs,
    ...(options.checkpointDir === undefined ? {} : { checkpointDir: options.checkpointDir }),
    ...(options.savepoint === undefined ? {} : { savepoint: options.savepoint }),
  };
}
