// Job documents for the validator's tests, and the assertions they share.
import { expect } from 'vitest';
import type { Problem } from '../problem.js';
import { JOB_FORMAT } from '../schema.js';

export type Json = Record<string, unknown>;

export const source = (id: string, extra: Json = {}): Json => ({
  id,
  kind: 'source.jsonl',
  params: { path: `${id}.jsonl` },
  ...extra,
});
export const processOp = (
  id: string,
  code = 'function process(record, ctx) { ctx.emit(record); }',
  extra: Json = {},
) => ({
  id,
  kind: 'process',
  params: { code },
  ...extra,
});
export const mapOp = (id: string, extra: Json = {}): Json => ({
  id,
  kind: 'map',
  params: { code: 'function map(record) { return record; }' },
  ...extra,
});
export const sink = (id: string, extra: Json = {}): Json => ({
  id,
  kind: 'sink.jsonl',
  params: { path: `${id}.jsonl` },
  ...extra,
});
export const edge = (id: string, from: string, to: string, extra: Json = {}): Json => ({
  id,
  from,
  to,
  partition: 'rebalance',
  ...extra,
});

export function job(operators: unknown[], edges: unknown[] = [], extra: Json = {}): Json {
  return { format: JOB_FORMAT, name: 'test', operators, edges, ...extra };
}

/** The one problem with this code; fails when there is none or several. */
export function only(problems: readonly Problem[], code: string): Problem {
  const matching = problems.filter((p) => p.code === code);
  expect(matching, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return matching[0]!;
}

export function expectNames(problem: Problem, ...ids: string[]): void {
  for (const id of ids) expect(problem.message).toContain(`"${id}"`);
}

export const pipeline = () =>
  job(
    [source('events'), processOp('owners'), sink('out')],
    [edge('e1', 'events', 'owners'), edge('e2', 'owners', 'out')],
  );
