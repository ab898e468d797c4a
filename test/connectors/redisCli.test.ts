// source.redis and sink.redis through the real CLI: what they read and write, and bad input
// (unreachable server, a missing stream, a key that is not a stream, a "json" field that is not
// JSON) failing with one line naming the operator and the cause, exit 1, no stack trace; or, with
// onBadRecord "skip", skipped and counted in recordsSkipped.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import {
  type CliResult,
  describeRun,
  type JobDocument,
  makeTempDir,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
} from '../cliHarness.js';
import { addJson, dropStreams, jsonOf, redis, uniqueStream } from './redisStreams.js';
import { describeWithServer, REDIS_URL } from './servers.js';

afterAll(async () => {
  await dropStreams();
  await removeTempDirs();
});

const UNREACHABLE = 'redis://127.0.0.1:1';

/** source.redis -> sink.jsonl out.jsonl. */
function readJob(params: Record<string, unknown>): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'redis-read',
    settings: { checkpointIntervalMs: 0, threads: 1 },
    operators: [
      { id: 'in', kind: 'source.redis', params: { url: REDIS_URL, stopAt: 'last', ...params } },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [{ id: 'e', from: 'in', to: 'out', partition: 'rebalance' }],
  };
}

/** source.jsonl in.jsonl -> sink.redis. */
function writeJobOf(params: Record<string, unknown>, parallelism = 1, checkpointIntervalMs = 0): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'redis-write',
    settings: { checkpointIntervalMs, threads: 1 },
    operators: [
      { id: 'in', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
      { id: 'out', kind: 'sink.redis', parallelism, params: { url: REDIS_URL, ...params } },
    ],
    edges: [{ id: 'e', from: 'in', to: 'out', partition: 'rebalance' }],
  };
}

async function run(job: JobDocument, input?: readonly unknown[], extra: readonly string[] = []) {
  const dir = await makeTempDir('pipewright-redis-cli-');
  await writeJob(path.join(dir, 'job.json'), job);
  if (input !== undefined)
    await writeFile(path.join(dir, 'in.jsonl'), input.map((v) => `${JSON.stringify(v)}\n`).join(''));
  const result = await runCli(['run', '--quiet', 'job.json', ...extra], { cwd: dir });
  return { dir, result };
}

/** Exit 1, one line naming what `says` says, no stack trace, no engine path. */
function expectClearRefusal(result: CliResult, says: readonly RegExp[]): void {
  const printed = result.stdout + result.stderr;
  expect(result.code, describeRun(result)).toBe(1);
  expect(printed.trim().split('\n'), describeRun(result)).toHaveLength(1);
  for (const pattern of says) expect(printed, describeRun(result)).toMatch(pattern);
  expect(printed, describeRun(result)).not.toMatch(/internal error/i);
  expect(printed, describeRun(result)).not.toMatch(/^\s+at /m);
  expect(printed, describeRun(result)).not.toMatch(/file:\/\/|node:internal|dist\/engine|node_modules/);
}

await describeWithServer('redis', 'source.redis and sink.redis through the CLI', () => {
  it.concurrent('source.redis reads JSON entries and field entries up to the last one at the start', async () => {
    const stream = uniqueStream('cli-read');
    await addJson(stream, [{ a: 1 }, [1, 2]]);
    await (await redis()).xAdd(stream, '*', { user: 'ada', action: 'login' });
    const { dir, result } = await run(readJob({ stream }));
    expect(result.code, describeRun(result)).toBe(0);
    expect(await readJsonl(path.join(dir, 'out.jsonl'))).toEqual([
      { a: 1 },
      [1, 2],
      { user: 'ada', action: 'login' },
    ]);
  });

  it.concurrent.each([1, 3])(
    'sink.redis at parallelism %i writes exactly its records, one entry each',
    async (parallelism) => {
      const stream = uniqueStream(`cli-write-${parallelism}`);
      const input = Array.from({ length: 500 }, (_, i) => ({ i, text: `record ${i}` }));
      const { result } = await run(writeJobOf({ stream }, parallelism, 50), input);
      expect(result.code, describeRun(result)).toBe(0);
      const written = await jsonOf(stream);
      const expected = input.map((v) => JSON.stringify(v));
      if (parallelism === 1) expect(written).toEqual(expected);
      else expect([...written].sort()).toEqual([...expected].sort());
    },
  );

  it.concurrent('an unreachable server fails the source after retryTimeoutMs, naming the operator and the server', async () => {
    const { result } = await run(readJob({ url: UNREACHABLE, stream: 's', retryTimeoutMs: 300 }));
    expectClearRefusal(result, [
      /operator "in"/,
      /Redis at 127\.0\.0\.1:1 did not answer/,
      /retryTimeoutMs 300/,
      /ECONNREFUSED/,
    ]);
  });

  it.concurrent('an unreachable server fails the sink after retryTimeoutMs, naming the operator and the server', async () => {
    const { result } = await run(writeJobOf({ url: UNREACHABLE, stream: 's', retryTimeoutMs: 300 }), [1, 2]);
    expectClearRefusal(result, [/operator "out"/, /Redis at 127\.0\.0\.1:1 did not answer/, /ECONNREFUSED/]);
  });

  it.concurrent('a missing stream fails the source naming it', async () => {
    const stream = uniqueStream('cli-missing');
    const { result } = await run(readJob({ stream }));
    expectClearRefusal(result, [
      new RegExp(`operator "in": stream "${stream}" does not exist at Redis at 127\\.0\\.0\\.1:6379`),
    ]);
  });

  it.concurrent('a key that is not a stream fails the source and the sink naming it and its type', async () => {
    const key = uniqueStream('cli-string');
    await (await redis()).set(key, 'hello');
    const read = await run(readJob({ stream: key }));
    expectClearRefusal(read.result, [
      new RegExp(`operator "in": key "${key}" .* holds a string, not a stream`),
    ]);
    const write = await run(writeJobOf({ stream: key }), [1]);
    expectClearRefusal(write.result, [
      new RegExp(`operator "out": key "${key}" .* holds a string, not a stream`),
    ]);
    expect(await (await redis()).get(key)).toBe('hello');
  });

  it.concurrent('a "json" field that is not JSON fails naming the operator, the stream and the entry; nothing is written', async () => {
    const stream = uniqueStream('cli-bad');
    await addJson(stream, [1]);
    const bad = await (await redis()).xAdd(stream, '*', { json: '{oops' });
    await addJson(stream, [3]);
    const out = uniqueStream('cli-bad-out');
    const job = readJob({ stream });
    job.operators[1] = { id: 'out', kind: 'sink.redis', params: { url: REDIS_URL, stream: out } };
    const { result } = await run(job);
    expectClearRefusal(result, [
      new RegExp(`operator "in": stream "${stream}" entry ${bad}: its "json" field is not valid JSON`),
    ]);
    expect(await (await redis()).exists(out)).toBe(0);
  });

  it.concurrent('with onBadRecord "skip" a "json" field that is not JSON is skipped and counted in recordsSkipped', async () => {
    const stream = uniqueStream('cli-skip');
    await addJson(stream, [1]);
    await (await redis()).xAdd(stream, '*', { json: '{oops' });
    await addJson(stream, [3]);
    const { dir, result } = await run(readJob({ stream, onBadRecord: 'skip' }), undefined, [
      '--metrics',
      'metrics.jsonl',
    ]);
    expect(result.code, describeRun(result)).toBe(0);
    expect(await readJsonl(path.join(dir, 'out.jsonl'))).toEqual([1, 3]);
    const samples = await readJsonl<JobDocument>(path.join(dir, 'metrics.jsonl'));
    const final = samples.filter((s) => s.type === 'metrics' && s.final === true);
    expect(final, describeRun(result)).toHaveLength(1);
    const source = (final[0]!.operators as JobDocument[]).find((op) => op.id === 'in')!;
    const skipped = (source.subtasks as JobDocument[]).reduce((n, s) => n + (s.recordsSkipped ?? 0), 0);
    expect(skipped).toBe(1);
    expect(source.recordsOut).toBe(2);
  });
});
