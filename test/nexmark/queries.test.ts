// The NEXMark job files in assets/nexmark/, each run over a few thousand events and compared
// with the plain-JavaScript reference of its SQL (reference.ts) over the same events, as a
// multiset where the SQL leaves the order open; q4's output is a changelog, whose last record
// per category is compared.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonical, RUNS, runQuery } from './queryRuns.js';
import * as reference from './reference.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-nexmark-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const QUERIES = {
  q0: reference.q0,
  q1: reference.q1,
  q2: reference.q2,
  q3: reference.q3,
  q5: reference.q5,
  q7: reference.q7,
  q8: reference.q8,
  q11: reference.q11,
} as const;

describe.each(RUNS)('NEXMark on the $executor executor, $stream stream', ({ executor, stream }) => {
  it.each(Object.keys(QUERIES) as (keyof typeof QUERIES)[])('%s gives its SQL’s rows', async (query) => {
    const { out, events } = await runQuery(query, executor, stream, dir);
    const expected = QUERIES[query](events);
    expect(expected.length).toBeGreaterThan(0);
    expect(canonical(out)).toEqual(canonical(expected));
  });

  it('q4 ends with each category’s average winning bid', async () => {
    const { out, events } = await runQuery('q4', executor, stream, dir);
    const expected = reference.q4(events);
    expect(expected.length).toBeGreaterThan(1);
    const last = new Map<number, unknown>();
    for (const record of out as { id: number }[]) last.set(record.id, record);
    expect(canonical([...last.values()])).toEqual(canonical(expected));
  });
});
