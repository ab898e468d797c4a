// NEXMark on the Flink session cluster `npm run services` starts (issue 28): a join in keyed state
// (q3), timers closing auctions and windows (q4, q7), a join of two windows with ctx.input (q8), a
// sliding window (q5) and session windows (q11) run with `pipewright flink --cluster` over the
// same events the local engine makes, and give its output. The source's readers make the events with the engine's own
// generator, so event n is the same on both; where the queries leave the order of their rows
// open, the rows are compared as a multiset, and q4's running average by its last value per
// category (its intermediate values depend on the order auctions close in, on any engine).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeRun, makeTempDir, readJsonl, removeTempDirs, runCli } from '../cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { describeWithServer, FLINK_URL } from './servers.js';

afterAll(removeTempDirs);

const NEXMARK = path.join(import.meta.dirname, '..', '..', 'assets', 'nexmark');
/** 40 s of event time at the queries' 1,000 events a second: four of q7's and q8's windows. */
const EVENTS = 40_000;

/** The query's output on one engine (`run` on one thread, or `flink` on the cluster). */
async function output(query: string, engine: 'run' | 'flink'): Promise<Record<string, unknown>[]> {
  const dir = await makeTempDir(`pipewright-nexmark-${query}-`);
  const job = JSON.parse(await readFile(path.join(NEXMARK, `${query}.job.json`), 'utf8'));
  job.operators[0].params.count = EVENTS;
  const jobPath = path.join(dir, `${query}.job.json`);
  await writeFile(jobPath, JSON.stringify(job));
  const args =
    engine === 'run'
      ? ['run', jobPath, '--quiet', '--threads', '1']
      : ['flink', jobPath, '--quiet', '--cluster', FLINK_URL];
  const result = await runCli(args, ON_FLINK);
  expect(result.code, describeRun(result)).toBe(0);
  return readJsonl<Record<string, unknown>>(path.join(dir, 'out', `${query}.jsonl`));
}

const multiset = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

await describeWithServer('flink', 'NEXMark on the Flink cluster', () => {
  it(
    "q3, q5, q7, q8 and q11 give the local engine's rows, q4 its averages",
    async () => {
      for (const query of ['q3', 'q5', 'q7', 'q8', 'q11']) {
        const local = await output(query, 'run');
        expect(local.length, query).toBeGreaterThan(0);
        expect(multiset(await output(query, 'flink')), query).toEqual(multiset(local));
      }
      const last = (rows: readonly Record<string, unknown>[]) =>
        Object.fromEntries(rows.map((r) => [String(r.id), r.final]));
      const local = await output('q4', 'run');
      expect(Object.keys(last(local)).length).toBeGreaterThan(1);
      expect(last(await output('q4', 'flink'))).toEqual(last(local));
    },
    6 * FLINK_TIMEOUT,
  );
});
