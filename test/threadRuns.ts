// Running one job at several thread counts (`--threads N`) and comparing what each wrote: the
// same multiset of lines, and each key's lines in the same order.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeDifference, outputLines } from './checkpointHelpers.js';
import {
  type CliResult,
  describeRun,
  type JobDocument,
  makeTempDir,
  runCli,
  writeJob,
} from './cliHarness.js';

export interface ThreadRun {
  readonly threads: number;
  readonly result: CliResult;
  /** The lines of each sink's file, by sink path. */
  readonly outputs: ReadonlyMap<string, string[]>;
}

/** The `path` of every sink.jsonl of the job. */
export function sinkPaths(job: JobDocument): string[] {
  return (job.operators as JobDocument[])
    .filter((op) => op.kind === 'sink.jsonl')
    .map((op) => op.params.path as string);
}

/**
 * Writes the job and its inputs into a fresh folder and runs it with `--threads threads`
 * (never rejects on a failed run: the caller asserts on `result`).
 */
export async function runAtThreads(
  job: JobDocument,
  inputs: ReadonlyMap<string, string>,
  threads: number,
  extraArgs: readonly string[] = [],
): Promise<ThreadRun> {
  const dir = await makeTempDir(`pipewright-threads${threads}-`);
  for (const [name, text] of inputs) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  const jobPath = path.join(dir, 'job.json');
  await writeJob(jobPath, job);
  const result = await runCli(['run', jobPath, '--quiet', '--threads', String(threads), ...extraArgs], {
    cwd: dir,
    // Within the test's own time, so a run that hangs is named with what it printed.
    timeoutMs: 25_000,
  });
  const outputs = new Map<string, string[]>();
  for (const sink of sinkPaths(job)) outputs.set(sink, await outputLines(path.join(dir, sink)));
  return { threads, result, outputs };
}

/** The lines of each key, in file order; lines `keyOf` gives no key are left out. */
export function linesByKey(
  lines: readonly string[],
  keyOf: (record: Record<string, unknown>) => string | undefined,
): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const line of lines) {
    const key = keyOf(JSON.parse(line) as Record<string, unknown>);
    if (key === undefined) continue;
    const list = byKey.get(key) ?? [];
    list.push(line);
    byKey.set(key, list);
  }
  return byKey;
}

/** How the lines of the keys differ in order or content ('' when every key has the same lines in the same order). */
export function describeKeyOrderDifference(
  actual: ReadonlyMap<string, string[]>,
  expected: ReadonlyMap<string, string[]>,
): string {
  const problems: string[] = [];
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    const a = actual.get(key) ?? [];
    const e = expected.get(key) ?? [];
    const at = a.findIndex((line, i) => line !== e[i]);
    if (at === -1 && a.length === e.length) continue;
    const i = at === -1 ? Math.min(a.length, e.length) : at;
    problems.push(
      `key ${key}: line ${i + 1} of ${a.length} is ${a[i] ?? '(none)'}, expected ${e[i] ?? '(none)'}`,
    );
  }
  return problems.slice(0, 5).join('\n');
}

/** For assertion messages: the run's exit and output, and how its lines differ from the reference. */
export function describeAgainst(run: ThreadRun, reference: ThreadRun, sink: string): string {
  return [
    `--threads ${run.threads} against --threads ${reference.threads}, ${sink}:`,
    describeDifference(run.outputs.get(sink) ?? [], reference.outputs.get(sink) ?? []),
    describeRun(run.result),
  ].join('\n');
}
