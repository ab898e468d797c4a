// What the soak tests of `pipewright flink --cluster` share: their keyed sum, its input and what
// it must give, the CLI in the background while the test acts on the job (a stop, a TaskManager
// killed), and the cluster's REST API asked when the job runs with checkpoints
// (flinkClusterJobs, flinkKafka, flinkRedis and flinkPostgres .soak.test.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { binPath } from '../cliHarness.js';
import type { PrivateFlink } from './privateServers.js';

/** The soak jobs' keyed process: each key's count and sum so far, as the bench's keyed job. */
export const KEYED_SUM = `function process(r, ctx) {
  const s = ctx.state.value('s');
  const a = s.get() ?? { n: 0, sum: 0 };
  a.n += 1; a.sum += r.v;
  s.set(a);
  ctx.emit({ k: r.k, n: a.n, sum: a.sum });
}`;

/** A soak job's input: record i is `{k, i, v}`, its key one of `keys`. */
export function soakRecords(count: number, keys: number): { k: string; i: number; v: number }[] {
  return Array.from({ length: count }, (_, i) => ({ k: `k${i % keys}`, i, v: (i * 7) % 13 }));
}

/** What KEYED_SUM emits for `records`, in their order: each key's count and sum so far. */
export function keyedSums(
  records: readonly { k: string; v: number }[],
): { k: string; n: number; sum: number }[] {
  const sums = new Map<string, { n: number; sum: number }>();
  return records.map(({ k, v }) => {
    const s = sums.get(k) ?? { n: 0, sum: 0 };
    s.n += 1;
    s.sum += v;
    sums.set(k, s);
    return { k, n: s.n, sum: s.sum };
  });
}

/** The CLI in the background, its output kept, so that the test can act while it runs. */
export function background(args: readonly string[]) {
  const child: ChildProcess = spawn(process.execPath, [binPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, done, output: () => ({ stdout, stderr }) };
}

export async function rest<T>(base: string, route: string): Promise<T> {
  const response = await fetch(`${base}${route}`, { signal: AbortSignal.timeout(10_000) });
  return (await response.json()) as T;
}

/** Waits until the job of this name runs on the cluster and has completed `checkpoints` checkpoints. */
export async function runningWithCheckpoints(
  base: string,
  name: string,
  checkpoints: number,
): Promise<string> {
  const deadline = Date.now() + 300_000;
  // Polled often: the job must still be running when the test acts.
  while (Date.now() < deadline) {
    const { jobs } = await rest<{ jobs: { jid: string; name: string; state: string }[] }>(
      base,
      '/jobs/overview',
    );
    const job = jobs.find((j) => j.name === name && j.state === 'RUNNING');
    if (job !== undefined) {
      const stats = await rest<{ counts?: { completed?: number } }>(base, `/jobs/${job.jid}/checkpoints`);
      if ((stats.counts?.completed ?? 0) >= checkpoints) return job.jid;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job "${name}" did not run with ${checkpoints} checkpoints within 5 minutes`);
}

/**
 * Ctrl-C to a `pipewright flink --cluster` run that background() started: the CLI stops the job
 * with a savepoint and exits 0 saying where it is. That path; an error with the CLI's output when
 * it exits otherwise or says no savepoint.
 */
export async function interruptWithSavepoint(
  run: ReturnType<typeof background>,
  name: string,
): Promise<string> {
  run.child.kill('SIGINT');
  const code = await run.done;
  const { stdout, stderr } = run.output();
  const stopped = new RegExp(`^stopped: job "${name}" with a savepoint at (\\S+)$`, 'm').exec(stdout);
  if (code !== 0 || stopped === null) {
    throw new Error(
      `the stop of job "${name}" exited ${code} without a savepoint line\n${stdout}\n${stderr}`,
    );
  }
  return stopped[1]!;
}

/**
 * runningWithCheckpoints(base, name, 1), or the CLI's own words at once if it ends first (a job
 * refused before it was submitted, or failed), rather than 5 minutes of polling.
 */
export async function runningOrEnded(
  run: ReturnType<typeof background>,
  base: string,
  name: string,
): Promise<string> {
  const ended = run.done.then((code) => {
    const { stdout, stderr } = run.output();
    throw new Error(
      `the CLI ended (exit ${code}) before job "${name}" ran with a checkpoint\n${stdout}\n${stderr}`,
    );
  });
  return Promise.race([runningWithCheckpoints(base, name, 1), ended]);
}

/**
 * Runs the job file with `pipewright flink --cluster` on a private cluster and, once a checkpoint
 * has completed, kills TaskManager 1 with -9 and starts it again 3 s later; the CLI's exit code,
 * its output and the job's id once it has ended. `beforeKill` looks at the running job first (a
 * failure there stops the CLI, so that nothing outlives the test).
 */
export async function runThroughTaskManagerKill(
  cluster: PrivateFlink,
  jobPath: string,
  jobName: string,
  beforeKill?: (jobId: string) => Promise<void>,
): Promise<{ code: number | null; stdout: string; stderr: string; jobId: string }> {
  const run = background(['flink', jobPath, '--cluster', cluster.url]);
  const jobId = await runningOrEnded(run, cluster.url, jobName);
  try {
    await beforeKill?.(jobId);
  } catch (error) {
    run.child.kill('SIGKILL');
    await run.done;
    throw error;
  }
  await cluster.killTaskManager(1);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await cluster.startTaskManager(1);
  const code = await run.done;
  return { code, ...run.output(), jobId };
}
