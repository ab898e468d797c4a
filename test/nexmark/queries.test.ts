// NEXMark q0 to q3 (assets/nexmark/), which need no event time: each job run over a few thousand
// events and compared, as a multiset, with the plain-JavaScript reference of its SQL
// (reference.ts) over the same events. The windowed and timed queries are in
// eventTimeQueries.test.ts.
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

const QUERIES = { q0: reference.q0, q1: reference.q1, q2: reference.q2, q3: reference.q3 } as const;

describe.each(RUNS)('NEXMark on the $executor executor, $stream stream', ({ executor, stream }) => {
  it.each(Object.keys(QUERIES) as (keyof typeof QUERIES)[])('%s gives its SQL’s rows', async (query) => {
    const { out, events } = await runQuery(query, executor, stream, dir);
    const expected = QUERIES[query](events);
    expect(expected.length).toBeGreaterThan(0);
    expect(canonical(out)).toEqual(canonical(expected));
  });
});
