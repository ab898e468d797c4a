// Soak: `pipewright flink --cluster` when things go wrong (issue 28). A user's error fails the job
// at once with the local engine's line; Ctrl-C stops it with a savepoint, the sink holding what
// the savepoint covers, and --from-savepoint goes on from it to one clean run's output; a TaskManager killed with -9 mid-run and started again leaves exactly the
// clean output. The first two on the cluster of `npm run services`, the kill on one of the
// test's own (privateServers.ts), so that the shared one is never disturbed.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { copyExample, describeRun, makeTempDir, readJsonl, removeTempDirs, runCli } from '../cliHarness.js';
import { byKey, ON_FLINK } from '../flinkHarness.js';
import {
  background,
  interruptWithSavepoint,
  KEYED_SUM,
  keyedSums,
  rest,
  runningWithCheckpoints,
  runThroughTaskManagerKill,
  soakRecords,
} from './flinkClusterWatch.js';
import { type PrivateFlink, startPrivateFlink } from './privateServers.js';
import { describeWithServer, FLINK_URL } from './servers.js';

let cluster: PrivateFlink | undefined;
afterAll(async () => {
  await cluster?.close();
  await removeTempDirs();
});

const KEYS = 300;
/** About 4 s of the runner's work at parallelism 2 here. */
const RECORDS = 400_000;

/**
 * A keyed running sum over `records` records, enough of them for the job to be stopped or hurt
 * mid-way (user code cannot wait on a clock: SES gives its compartments no Date.now()); the
 * records it must give, by key.
 */
async function slowJob(records: number, name: string, parallelism = 2) {
  const dir = await makeTempDir('pipewright-flink-slow-');
  const input = soakRecords(records, KEYS);
  await writeFile(path.join(dir, 'in.jsonl'), input.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const expected = keyedSums(input);
  const job = {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 300 },
    operators: [
      { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
      {
        id: 'acc',
        kind: 'process',
        parallelism,
        params: {
          code: KEYED_SUM,
        },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'acc', to: 'out', partition: 'rebalance' },
    ],
  };
  const jobPath = path.join(dir, `${name}.job.json`);
  await writeFile(jobPath, JSON.stringify(job));
  return { dir, jobPath, expected: byKey(expected, 'k'), out: path.join(dir, 'out.jsonl') };
}

await describeWithServer('flink', 'pipewright flink --cluster when things go wrong', () => {
  it("fails a job whose code throws, at once, with the local engine's line", async () => {
    const copy = await copyExample('word-count');
    const job = JSON.parse(await readFile(copy.jobPath, 'utf8'));
    job.operators[2].params.code =
      'function process(record, ctx) { if (record.word === "stream") throw new RangeError("no " + record.word); ctx.emit(record); }';
    await writeFile(copy.jobPath, JSON.stringify(job));
    const result = await runCli(['flink', copy.jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^pipewright: operator "count" \(subtask [01] of 2\) failed: RangeError: no stream$/,
    );
  });

  it('stops with a savepoint at Ctrl-C, the sink holding what it covers, and goes on from it', async () => {
    const name = `stop-${process.pid}`;
    // Three times the others' records: the stop must come while the job still runs.
    const job = await slowJob(3 * RECORDS, name);
    const run = background(['flink', job.jobPath, '--cluster', FLINK_URL]);
    await runningWithCheckpoints(FLINK_URL, name, 1);
    const savepoint = await interruptWithSavepoint(run, name);
    const written = byKey(await readJsonl<Record<string, unknown>>(job.out), 'k');
    let total = 0;
    for (const [key, records] of written) {
      // Each key's records are the first ones of the clean run's, none twice, none skipped.
      expect(records).toEqual(job.expected.get(key)!.slice(0, records.length));
      total += records.length;
    }
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(3 * RECORDS);

    // Started again from the savepoint, the job goes on where it stopped: one clean run's output.
    const resumed = await runCli(
      ['flink', job.jobPath, '--cluster', FLINK_URL, '--from-savepoint', savepoint, '--quiet'],
      ON_FLINK,
    );
    expect(resumed.code, describeRun(resumed)).toBe(0);
    expect(byKey(await readJsonl<Record<string, unknown>>(job.out), 'k')).toEqual(job.expected);

    // A savepoint that is not there is one line, before anything is submitted.
    const missing = await runCli(
      ['flink', job.jobPath, '--cluster', FLINK_URL, '--from-savepoint', path.join(job.dir, 'nowhere')],
      ON_FLINK,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      `pipewright: --from-savepoint: there is no savepoint at ${path.join(job.dir, 'nowhere')}`,
    );
  });

  it('gives exactly the clean output when a TaskManager is killed with -9 mid-run and started again', async () => {
    cluster = await startPrivateFlink();
    const name = `tm-kill-${process.pid}`;
    // At parallelism 4 the job takes all 4 slots, so it has subtasks on the TaskManager killed
    // (at 2, Flink may place the whole job on the other one, and the kill would touch nothing).
    const job = await slowJob(RECORDS, name, 4);
    const { code, stdout, stderr, jobId } = await runThroughTaskManagerKill(cluster, job.jobPath, name);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(byKey(await readJsonl<Record<string, unknown>>(job.out), 'k')).toEqual(job.expected);
    // The loss was the job's to recover from, not a kill after its end.
    const { exceptionHistory } = await rest<{ exceptionHistory: { entries: unknown[] } }>(
      cluster.url,
      `/jobs/${jobId}/exceptions`,
    );
    expect(exceptionHistory.entries.length).toBeGreaterThan(0);
  });
});
