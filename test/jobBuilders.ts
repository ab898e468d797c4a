// Jobs built as objects in tests and checked by the engine's validator, which must find nothing
// wrong with them; shorthands for the operator kinds the tests use most.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { JobRun } from '../engine/deploy/jobRun.js';
import type { Job } from '../engine/graph/schema.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';

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
  expect(job).toBeDefined();
  return job!;
}

export const generator = (
  id: string,
  code: string,
  count: number,
  parallelism = 1,
  seed?: number,
): OperatorInput => ({
  id,
  kind: 'source.generator',
  parallelism,
  params: { code, count, ...(seed === undefined ? {} : { seed }) },
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

/** Runs `job` (JobRun, state in `dir`) and reads the JSONL file `output` it writes there; or the error it fails with. */
export async function runForOutput(
  job: Job,
  dir: string,
  output = 'out.jsonl',
): Promise<{ out?: unknown[]; error?: Error }> {
  try {
    const jobRun = await JobRun.open(job, { jobDir: dir, stateDir: join(dir, 'state') });
    await jobRun.run();
  } catch (error) {
    return { error: error as Error };
  }
  const text = await readFile(join(dir, output), 'utf8');
  return {
    out: text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line)),
  };
}
