// Helpers for the debugger's tests (engine/debug/*.test.ts): jobs built as objects and checked by
// the validator, temporary job folders, debug sessions over them, and a plain run of the same job
// (what `pipewright run` does) to compare with.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { DebugSession, type DebugSessionOptions } from '../engine/debug/debugSession.js';
import type { Job } from '../engine/graph/schema.js';
import { validateJob } from '../engine/graph/validate.js';
import type { StepView } from '../engine/host/runProtocol.js';
import { JobRun } from '../engine/runtime/jobRun.js';

export type OperatorInput = {
  id: string;
  kind: string;
  parallelism?: number;
  params: Record<string, unknown>;
};
export type EdgeInput = {
  id: string;
  from: string;
  to: string;
  partition: string;
  key?: string | string[];
  fromPort?: string;
  feedback?: boolean;
};

/** A job through the validator, which must find nothing wrong with it. */
export function makeJob(
  name: string,
  operators: OperatorInput[],
  edges: EdgeInput[],
  settings: Record<string, unknown> = {},
): Job {
  const { job, problems } = validateJob({
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 0, ...settings },
    operators,
    edges,
  });
  expect(problems).toEqual([]);
  return job!;
}

export const generator = (id: string, code: string, count: number, parallelism = 1): OperatorInput => ({
  id,
  kind: 'source.generator',
  parallelism,
  params: { code, count },
});
export const fn = (id: string, kind: string, code: string, parallelism = 1): OperatorInput => ({
  id,
  kind,
  parallelism,
  params: { code },
});
export const sink = (id: string, path: string, parallelism = 1): OperatorInput => ({
  id,
  kind: 'sink.jsonl',
  parallelism,
  params: { path },
});

/** A fresh folder (under the OS's temp folder) holding `files`. */
export async function jobFolder(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pipewright-debug-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

export function debugSession(
  job: Job,
  dir: string,
  options: Partial<Omit<DebugSessionOptions, 'job' | 'jobDir' | 'stateDir'>> = {},
): Promise<DebugSession> {
  return DebugSession.open({
    job,
    jobDir: dir,
    stateDir: join(dir, 'debug-state'),
    checkpointDir: join(dir, 'debug-checkpoints'),
    previewSinks: true,
    ...options,
  });
}

/** Steps until the job ends; every view, in order. */
export async function stepToEnd(session: DebugSession, limit = 1_000_000): Promise<StepView[]> {
  const views: StepView[] = [];
  for (let view = await session.step(); view !== undefined; view = await session.step()) {
    views.push(view);
    if (views.length > limit) throw new Error(`more than ${limit} steps`);
  }
  return views;
}

/** The job as `pipewright run` runs it (JobRun.open + run, state and checkpoints in their own folders). */
export async function plainRun(job: Job, dir: string): Promise<void> {
  const run = await JobRun.open(job, {
    jobDir: dir,
    stateDir: join(dir, 'run-state'),
    checkpointDir: join(dir, 'run-checkpoints'),
  });
  await run.run();
}

export async function readLines(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8')).split('\n').filter((line) => line.length > 0);
}
