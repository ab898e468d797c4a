import { expect } from 'vitest';
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
