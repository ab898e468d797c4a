// What the soak tests of `pipewright flink --cluster` share: the CLI in the background while the
// test acts on the job (a stop, a TaskManager killed), and the cluster's REST API asked when the
// job runs with checkpoints (flinkClusterJobs.soak.test.ts, flinkKafka.soak.test.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { binPath } from '../cliHarness.js';

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
