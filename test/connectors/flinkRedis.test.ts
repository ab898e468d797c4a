// source.redis and sink.redis on the Flink cluster of `npm run services` (issue 28): a job Redis
// stream -> keyed process -> Redis stream, with the source's records also straight into a JSONL
// file, run with `pipewright run` and with `pipewright flink --cluster`, gives the same output:
// the output stream holds the same `json` values, each key's in the same order, its commit marker
// says the job ended, and the file holds the same lines (entries of fields as well as of `json`).
// A key that is not a stream, a `json` field that is not JSON and a server that does not answer
// fail the job on both with the same line.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  removeTempDirs,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { byKey, FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { addJson, dropStreams, jsonOf, redis, uniqueStream } from './redisStreams.js';
import { describeWithServers, FLINK_URL, REDIS_URL } from './servers.js';

afterAll(async () => {
  await dropStreams();
  await removeTempDirs();
});

const KEYS = 23;
const RECORDS = 3000;

/** {k, i, v} as `json` entries; every 500th an entry of fields, in an order JavaScript changes. */
async function fillInput(stream: string): Promise<void> {
  const client = await redis();
  for (let at = 0; at < RECORDS; at += 500) {
    await addJson(
      stream,
      Array.from({ length: 499 }, (_, j) => {
        const i = at + j;
        return { k: `k${i % KEYS}`, i, v: (i * 7) % 13 };
      }),
    );
    await client.xAdd(stream, '*', {
      k: `k${(at + 499) % KEYS}`,
      i: String(at + 499),
      v: '5',
      '2': 'two',
      '1': 'one',
    });
  }
}

/** The job: a keyed running sum into `out`, and the source's records as they are into records.jsonl. */
function job(name: string, inStream: string, outStream: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 500 },
    operators: [
      // Parallelism 2: subtask 0 reads the stream, subtask 1 ends at once, on both engines.
      {
        id: 'in',
        kind: 'source.redis',
        parallelism: 2,
        params: { url: REDIS_URL, stream: inStream, stopAt: 'last' },
      },
      {
        id: 'acc',
        kind: 'process',
        parallelism: 2,
        params: {
          code: `function process(r, ctx) {
  const s = ctx.state.value('s');
  const a = s.get() ?? { n: 0, sum: 0 };
  a.n += 1; a.sum += Number(r.v);
  s.set(a);
  ctx.emit({ k: r.k, i: Number(r.i), n: a.n, sum: a.sum });
}`,
        },
      },
      { id: 'out', kind: 'sink.redis', parallelism: 2, params: { url: REDIS_URL, stream: outStream } },
      { id: 'records', kind: 'sink.jsonl', params: { path: 'records.jsonl' } },
    ],
    edges: [
      { id: 'in-acc', from: 'in', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'acc-out', from: 'acc', to: 'out', partition: 'forward' },
      { id: 'in-records', from: 'in', to: 'records', partition: 'rebalance' },
    ],
  };
}

async function runJob(engine: 'local' | 'flink', inStream: string) {
  const outStream = uniqueStream(`flink-out-${engine}`);
  const dir = await makeTempDir(`pipewright-flink-redis-${engine}-`);
  const jobPath = path.join(dir, 'job.job.json');
  await writeJob(jobPath, job(`${path.basename(dir)}-${engine}`, inStream, outStream));
  const ran =
    engine === 'local'
      ? await runCli(['run', jobPath, '--quiet'])
      : await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
  expect(ran.code, describeRun(ran)).toBe(0);
  const values = (await jsonOf(outStream)).map((text) => JSON.parse(text) as Record<string, unknown>);
  const marker = await (await redis()).hGetAll(`pipewright:commits:{${outStream}}`);
  const lines = (await readFile(path.join(dir, 'records.jsonl'), 'utf8')).split('\n').filter((l) => l !== '');
  return { values, marker, lines: lines.sort() };
}

/** Runs a two-operator job (in.jsonl beside it) on both engines; their one-line failures. */
async function failures(operators: JobDocument['operators']): Promise<[string, string]> {
  const dir = await makeTempDir('pipewright-flink-redis-bad-');
  const jobPath = path.join(dir, 'bad.job.json');
  await writeFile(path.join(dir, 'in.jsonl'), '{"k":1}\n');
  await writeJob(jobPath, {
    format: 'pipewright.job/1',
    name: `${path.basename(dir)}-bad`,
    operators,
    edges: [{ id: 'e', from: 'in', to: 'out', partition: 'forward' }],
  });
  const local = await runCli(['run', jobPath, '--quiet']);
  const flink = await runCli(['flink', jobPath, '--cluster', FLINK_URL, '--quiet'], ON_FLINK);
  expect(local.code, describeRun(local)).toBe(1);
  expect(flink.code, describeRun(flink)).toBe(1);
  return [local.stderr.trim(), flink.stderr.trim()];
}

await describeWithServers(['redis', 'flink'], 'source.redis and sink.redis on Flink', () => {
  it(
    "gives the local engine's entries, each key's in order, and its records",
    async () => {
      const inStream = uniqueStream('flink-in');
      await fillInput(inStream);
      const local = await runJob('local', inStream);
      const flink = await runJob('flink', inStream);
      expect(local.values.length).toBe(RECORDS);
      expect(flink.values.length).toBe(RECORDS);
      expect(byKey(flink.values, 'k')).toEqual(byKey(local.values, 'k'));
      expect(flink.lines).toEqual(local.lines);
      expect(flink.lines.some((l) => l.startsWith('{"1":"one","2":"two","k":'))).toBe(true);
      // Each writer's lineage marked as ended, as the local committer marks its one.
      expect(Object.values(local.marker)).toEqual(['end']);
      expect(Object.values(flink.marker)).toEqual(['end', 'end']);
      expect(Object.keys(flink.marker).every((field) => field.startsWith('out:'))).toBe(true);
    },
    2 * FLINK_TIMEOUT,
  );

  it(
    "fails with the local engine's line for a key that is not a stream, bad JSON and no server",
    async () => {
      const notStream = uniqueStream('flink-string');
      await (await redis()).set(notStream, 'x');
      const sink = { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } };
      const [localType, flinkType] = await failures([
        { id: 'in', kind: 'source.redis', params: { url: REDIS_URL, stream: notStream, stopAt: 'last' } },
        sink,
      ]);
      expect(flinkType).toBe(localType);
      expect(flinkType).toMatch(
        /^pipewright: operator "in": key ".*" at Redis at 127\.0\.0\.1:6379 holds a string, not a stream$/,
      );

      const bad = uniqueStream('flink-bad');
      await addJson(bad, [{ k: 1 }, { k: 2 }]);
      await (await redis()).xAdd(bad, '*', { json: '{"k":' });
      const [localBad, flinkBad] = await failures([
        { id: 'in', kind: 'source.redis', params: { url: REDIS_URL, stream: bad, stopAt: 'last' } },
        sink,
      ]);
      // The parser's words differ (JSON.parse's, Jackson's): the rest is the same line.
      const upToWords = (line: string) => line.slice(0, line.lastIndexOf('('));
      expect(upToWords(flinkBad)).toBe(upToWords(localBad));
      expect(flinkBad).toMatch(
        /^pipewright: operator "in": stream ".*" entry \d+-\d+: its "json" field is not valid JSON \(.+\)$/,
      );

      const [localGone, flinkGone] = await failures([
        { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
        {
          id: 'out',
          kind: 'sink.redis',
          params: { url: 'redis://127.0.0.1:1', stream: 's', retryTimeoutMs: 300 },
        },
      ]);
      // The wait and the client's words differ: what was asked and of whom is the same.
      const upToWait = (line: string) =>
        line.replace(/did not answer for .*? while/, 'did not answer while').replace(/\): .*$/, ')');
      expect(upToWait(flinkGone)).toBe(upToWait(localGone));
      expect(flinkGone).toMatch(
        /^pipewright: operator "out": Redis at 127\.0\.0\.1:1 did not answer for .+ while checking stream "s" \(retryTimeoutMs 300\): .+$/,
      );
    },
    2 * FLINK_TIMEOUT,
  );
});
