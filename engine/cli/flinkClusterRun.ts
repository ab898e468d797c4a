// `pipewright flink --cluster URL`: the job submitted to a Flink session cluster through its REST
// API and followed there until it ends: a status line (records read, their rate, checkpoints), the
// user's one line when it fails, the sinks' parts joined when it finishes. A first Ctrl-C stops
// it with a savepoint (Flink's stop: the sinks commit what the savepoint covers), a second
// cancels it.
import type { FlinkRunnerFiles } from '../deploy/flinkBuild.js';
import { ENDED, type FlinkJobStatus, userMessageOf } from '../deploy/flinkRest.js';
import { type FlinkCluster, submitToCluster } from '../deploy/flinkSubmission.js';
import type { FlinkPlan } from '../graph/flinkPlan.js';
import { formatCount } from './progressDisplay.js';

export interface ClusterRunOptions {
  readonly cluster: FlinkCluster;
  readonly files: FlinkRunnerFiles;
  readonly plan: FlinkPlan;
  /** Where Ctrl-C's savepoint goes when neither --savepoint-dir nor the cluster says. */
  readonly savepointFallback: string;
  readonly savepointDir?: string;
  readonly quiet: boolean;
  /** Resolves at each stop the user asks for (Ctrl-C, SIGINT, SIGTERM), with their count so far. */
  readonly stops: { next(): Promise<number> };
  readonly say: (text: string) => void;
  readonly complain: (text: string) => void;
  /** Joins the sinks' committed parts into their files. */
  readonly joinSinks: () => Promise<void>;
}

const POLL_MS = 1000;
/** Without a terminal, a status line this often at most. */
const LOG_EVERY_MS = 10_000;

/** Records the sources have read: Flink counts a chained source's output on its task. */
function recordsRead(status: FlinkJobStatus): number {
  return status.vertices
    .filter((v) => v.name.startsWith('Source:'))
    .reduce((n, v) => n + (v.metrics?.['write-records'] ?? 0), 0);
}

export async function runOnCluster(options: ClusterRunOptions): Promise<number> {
  const { cluster, files, plan, quiet, say, complain } = options;
  const { address, rest, version } = cluster;
  const jobId = await submitToCluster(cluster, files, plan);
  if (!quiet) say(`job "${plan.jobName}" submitted to ${address} as ${jobId} (Flink ${version})`);

  const tty = process.stderr.isTTY === true && !quiet;
  let stops = 0;
  let stopping: Promise<string> | undefined;
  let stopFailure: unknown;
  void (async () => {
    for (;;) {
      stops = await options.stops.next();
      if (stops === 1) {
        const dir = options.savepointDir ?? (await rest.savepointDir()) ?? options.savepointFallback;
        if (!quiet) complain(`stopping the job with a savepoint in ${dir} (again to cancel it)`);
        stopping = rest.stopWithSavepoint(jobId, dir);
        stopping.catch((error) => {
          stopFailure = error;
        });
      } else {
        if (!quiet) complain('cancelling the job');
        await rest.cancel(jobId).catch(() => {});
        return;
      }
    }
  })();

  let lastRead = 0;
  let lastAt = Date.now();
  let lastLogged = 0;
  let status: FlinkJobStatus;
  for (;;) {
    status = await rest.status(jobId);
    if (ENDED.has(status.state)) break;
    if (!quiet) {
      const now = Date.now();
      const read = recordsRead(status);
      const rate = ((read - lastRead) * 1000) / Math.max(1, now - lastAt);
      [lastRead, lastAt] = [read, now];
      const checkpoints = await rest.checkpoints(jobId).catch(() => undefined);
      const line = `${status.state.toLowerCase()}: ${formatCount(read)} records read (${formatCount(Math.round(rate))}/s), ${checkpoints?.completed ?? 0} checkpoints`;
      if (tty) process.stderr.write(`\r\x1b[2K${line}`);
      else if (now - lastLogged >= LOG_EVERY_MS) {
        complain(line);
        lastLogged = now;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (tty) process.stderr.write('\r\x1b[2K');

  if (status.state === 'FINISHED') {
    const savepoint = stopping === undefined ? undefined : await stopping.catch(() => undefined);
    await options.joinSinks();
    if (savepoint !== undefined) {
      if (!quiet) say(`stopped: job "${plan.jobName}" with a savepoint at ${savepoint}`);
      return 0;
    }
    if (!quiet)
      say(`done: job "${plan.jobName}" on ${address}, ${formatCount(recordsRead(status))} records read`);
    return 0;
  }
  if (status.state === 'CANCELED') {
    complain(
      stops > 1
        ? 'stopped: the job was cancelled; no sink file was written'
        : `the job was cancelled on the cluster${stopFailure === undefined ? '' : ` (${(stopFailure as Error).message})`}`,
    );
    return stops > 1 ? 130 : 1;
  }
  const trace = await rest.rootException(jobId).catch(() => undefined);
  complain(trace === undefined ? `the job failed on ${address} (no reason given)` : userMessageOf(trace));
  return 1;
}
