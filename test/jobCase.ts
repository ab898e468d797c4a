// A job written to a folder of its own for a test, as a user's job sits beside its files: where
// the CLI puts its checkpoints, what its JSON Lines sinks wrote, and the clean run every crashed
// and restored run is compared with.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { describeDifference, describeResult, outputLines, runToEnd } from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, writeJob } from './cliHarness.js';

export interface JobCase {
  readonly dir: string;
  readonly jobPath: string;
  /** The first sink.jsonl's file. */
  readonly outPath: string;
  /** Every sink.jsonl's path as the job gives it (relative to `dir` unless absolute). */
  readonly outputs: readonly string[];
  /** Where `pipewright run` keeps the job's checkpoints by default. */
  readonly checkpointDir: string;
  readonly metricsPath: string;
}

export function sinkPathsOf(job: JobDocument): string[] {
  return (job.operators as JobDocument[])
    .filter((op) => op.kind === 'sink.jsonl')
    .map((op) => op.params.path as string);
}

export async function makeJobCase(label: string, job: JobDocument): Promise<JobCase> {
  const dir = await makeTempDir(`pipewright-${label}-`);
  const jobPath = path.join(dir, `${job.name}.job.json`);
  await writeJob(jobPath, job);
  const outputs = sinkPathsOf(job);
  return {
    dir,
    jobPath,
    outPath: path.resolve(dir, outputs[0] ?? 'no-sink.jsonl'),
    outputs,
    checkpointDir: path.join(dir, '.pipewright', job.name as string, 'checkpoints'),
    metricsPath: path.join(dir, 'metrics.jsonl'),
  };
}

/** Every sink file's lines, by the path the job gives it. */
export async function outputsOf(c: JobCase): Promise<Map<string, string[]>> {
  const outputs = new Map<string, string[]>();
  for (const file of c.outputs) outputs.set(file, await outputLines(path.resolve(c.dir, file)));
  return outputs;
}

export interface Baseline {
  /** The first sink's lines and text. */
  readonly lines: string[];
  readonly text: string;
  readonly outputs: Map<string, string[]>;
  /** Wall time of the run, start of the process to its exit. */
  readonly ms: number;
}

/** A clean run of `job` through the CLI: what every crashed and restored run must end with. */
export async function runBaseline(label: string, job: JobDocument): Promise<Baseline> {
  const c = await makeJobCase(label, job);
  const started = Date.now();
  // Its inputs are written once for a whole test file, outside the job's folder: --trust.
  const result = await runToEnd(['run', c.jobPath, '--quiet', '--trust'], c.dir);
  const ms = Date.now() - started;
  expect(result.code, describeResult(result)).toBe(0);
  const text = await readFile(c.outPath, 'utf8');
  return { lines: text.split('\n').filter((l) => l !== ''), text, outputs: await outputsOf(c), ms };
}

/** Each sink's output equals the clean run's, as a multiset of lines. */
export function expectSameOutputs(
  actual: Map<string, string[]>,
  expected: Map<string, string[]>,
  context: string,
): void {
  for (const [file, lines] of expected) {
    const difference = describeDifference(actual.get(file) ?? [], lines);
    expect(difference, `${context}\n${file}: ${difference}`).toBe('');
  }
}
