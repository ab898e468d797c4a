// sink.redis's writer and committer against a real Redis: nothing reaches the stream before a
// checkpoint's commit; a commit done again (a restore's recover, a retry after a lost reply)
// adds nothing, while a fresh run of the same job (another lineage, the same checkpoint ids)
// does write; what a failed checkpoint prepared goes with the next commit; a checkpoint's
// records beyond SPILL_BYTES travel in a checkpoint file; restoring a checkpoint older than the
// last committed one is refused; and the errors of a key that is not a stream. Also testConnection.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobError } from '../../engine/graph/jobError.js';
import type { PlannedOperator } from '../../engine/graph/plan.js';
import { RedisCommitter } from '../../engine/operators/redis/redisCommitter.js';
import { RedisConnection } from '../../engine/operators/redis/redisConnection.js';
import { RedisSinkWriter, SPILL_BYTES } from '../../engine/operators/redis/redisSinkWriter.js';
import { sinkRedisFactory } from '../../engine/operators/redis/sinkRedis.js';
import { sourceRedisFactory } from '../../engine/operators/redis/sourceRedis.js';
import type { CheckpointFiles, FileRef } from '../../engine/runtime/checkpointFiles.js';
import type { ConnectorState } from '../../engine/runtime/connectorState.js';
import type { Envelope } from '../../engine/runtime/envelope.js';
import type { SubtaskEnvironment } from '../../engine/runtime/operatorLogic.js';
import { addJson, dropStreams, jsonOf, redis, uniqueStream } from './redisStreams.js';
import { describeWithServer, REDIS_URL } from './servers.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-redis-sink-'));
});
afterAll(async () => {
  await dropStreams();
  await rm(root, { recursive: true, force: true });
});

const files = (): CheckpointFiles => ({
  root,
  dataPath: (operator, subtask, name) => join('data', operator, String(subtask), name),
  absolute: (ref: FileRef | string) => join(root, typeof ref === 'string' ? ref : ref.path),
});

const connection = (url = REDIS_URL) => new RedisConnection(url, 'out', 500, undefined);

function writer(stream: string, subtask = 0, url = REDIS_URL): RedisSinkWriter {
  const env = {
    operator: { id: 'out', parallelism: 1 } as unknown as PlannedOperator,
    subtask,
    parallelism: 1,
    jobDir: '.',
    emitter: undefined as never,
    state: undefined,
    current: undefined,
    input: undefined,
    watermark: Number.NEGATIVE_INFINITY,
    timers: undefined,
    checkpoints: files(),
  } satisfies SubtaskEnvironment;
  return new RedisSinkWriter(env, connection(url), stream, 1);
}

const committer = (stream: string) => new RedisCommitter(connection(), stream, files());

const envelope = (value: unknown) => ({ value }) as unknown as Envelope;

/** Writes the values and takes them at checkpoint `id`'s barrier. */
async function written(w: RedisSinkWriter, values: readonly unknown[], id: number): Promise<ConnectorState> {
  for (const value of values) await w.write(envelope(value));
  return (await w.prepareCommit(id))!.state;
}

const texts = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v));

await describeWithServer('redis', 'sink.redis writer and committer', () => {
  it('writes nothing before the commit; the commit writes the checkpoint in subtask order, with a marker', async () => {
    const stream = uniqueStream('commit');
    const [w0, w1] = [writer(stream, 0), writer(stream, 1)];
    await w0.open();
    const a = await written(w0, [{ n: 1 }, { n: 2 }], 1);
    const b = await written(w1, ['three', 4, null], 1);
    const c = committer(stream);
    const commit = await c.prepare(1, [a, b]);
    expect(await (await redis()).type(stream)).toBe('none');
    await c.commit(commit);
    expect(await jsonOf(stream)).toEqual(texts([{ n: 1 }, { n: 2 }, 'three', 4, null]));
    // One field, "json", per entry.
    const [first] = (await (await redis()).xRange(stream, '-', '+')) as unknown as { message: object }[];
    expect(Object.keys(first!.message)).toEqual(['json']);
  });

  it('adds nothing when a commit is done again: by the committer, or by a restore recovering it', async () => {
    const stream = uniqueStream('replay');
    const c = committer(stream);
    const commit = await c.prepare(1, [await written(writer(stream), [1, 2, 3], 1)]);
    await c.commit(commit);
    await c.commit(commit);
    const restored = committer(stream);
    await restored.recover(commit, 1);
    expect(await jsonOf(stream)).toEqual(texts([1, 2, 3]));
    // The restored committer goes on in the same lineage: its next checkpoint is written.
    await restored.commit(await restored.prepare(2, [await written(writer(stream), [4], 2)]));
    expect(await jsonOf(stream)).toEqual(texts([1, 2, 3, 4]));
  });

  it('writes again for a fresh run of the same job (another lineage, the same checkpoint ids)', async () => {
    const stream = uniqueStream('fresh');
    for (let run = 0; run < 2; run++) {
      const c = committer(stream);
      await c.commit(await c.prepare(1, [await written(writer(stream), [run], 1)]));
    }
    expect(await jsonOf(stream)).toEqual(texts([0, 1]));
  });

  it('commits what a failed checkpoint prepared with the next one, and not twice when a commit applied but its reply was lost', async () => {
    const stream = uniqueStream('failed');
    const c = committer(stream);
    // Checkpoint 1 fails after prepare: never committed.
    await c.prepare(1, [await written(writer(stream), ['a'], 1)]);
    const second = await c.prepare(2, [await written(writer(stream), ['b'], 2)]);
    // Checkpoint 2's commit reaches Redis, but the committer never hears so (another committer
    // of the lineage, a restore, applies it instead).
    await committer(stream).recover(second, 2);
    expect(await jsonOf(stream)).toEqual(texts(['a', 'b']));
    // Checkpoint 3 carries a and b again (not known committed) and c: only c is new.
    await c.commit(await c.prepare(3, [await written(writer(stream), ['c'], 3)]));
    expect(await jsonOf(stream)).toEqual(texts(['a', 'b', 'c']));
  });

  it('puts a checkpoint beyond SPILL_BYTES into a checkpoint file named in the committable, and commits it exactly', async () => {
    const stream = uniqueStream('spill');
    const values = Array.from({ length: 3000 }, (_, i) => ({ i, pad: 'x'.repeat(40) }));
    expect(JSON.stringify(values).length).toBeGreaterThan(SPILL_BYTES);
    const w = writer(stream);
    const state = await written(w, values, 1);
    expect(state.files).toHaveLength(1);
    expect(state.payload).toMatchObject({ count: values.length, file: state.files![0] });
    const c = committer(stream);
    const commit = await c.prepare(1, [state]);
    expect(commit.files).toEqual(state.files);
    await c.commit(commit);
    expect(await jsonOf(stream)).toEqual(texts(values));
    // What comes after the barrier goes into a new part.
    const next = await written(w, [{ last: true }], 2);
    expect(next.files).toBeUndefined();
    await c.commit(await c.prepare(2, [next]));
    expect((await jsonOf(stream)).length).toBe(values.length + 1);
  });

  it('refuses to restore a checkpoint older than the last one committed (its successors would be written twice)', async () => {
    const stream = uniqueStream('older');
    const c = committer(stream);
    const first = await c.prepare(1, [await written(writer(stream), [1], 1)]);
    await c.commit(first);
    await c.commit(await c.prepare(2, [await written(writer(stream), [2], 2)]));
    const error = await committer(stream)
      .recover(first, 1)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(JobError);
    expect((error as Error).message).toBe(
      `operator "out": stream "${stream}" already holds what this job committed up to checkpoint 2, after checkpoint 1: restoring 1 would write those entries again (restore the latest checkpoint)`,
    );
  });

  it('at the end of a bounded job commits everything left; a restore afterwards adds nothing', async () => {
    const stream = uniqueStream('end');
    const c = committer(stream);
    const first = await c.prepare(1, [await written(writer(stream), [1], 1)]);
    await c.commit(first);
    const w = writer(stream);
    for (const value of [2, 3]) await w.write(envelope(value));
    const last = await w.prepareCommit(undefined);
    await c.commitRemaining([last!.state]);
    expect(await jsonOf(stream)).toEqual(texts([1, 2, 3]));
    const restored = committer(stream);
    await restored.recover(first, 1);
    await restored.commit(await restored.prepare(2, [await written(writer(stream), [2], 2)]));
    await restored.commitRemaining([]);
    expect(await jsonOf(stream)).toEqual(texts([1, 2, 3]));
  });

  it('fails naming the operator and the key when the key holds something other than a stream', async () => {
    const stream = uniqueStream('wrongtype');
    await (await redis()).hSet(stream, 'f', 'v');
    const expected = `operator "out": key "${stream}" at Redis at 127.0.0.1:6379 holds a hash, not a stream`;
    await expect(writer(stream).open()).rejects.toThrow(expected);
    const c = committer(stream);
    await expect(c.commit(await c.prepare(1, [await written(writer(stream), [1], 1)]))).rejects.toThrow(
      expected,
    );
  });

  it('fails after retryTimeoutMs naming the operator and the server when it does not answer', async () => {
    const w = writer('s', 0, 'redis://127.0.0.1:1');
    await expect(w.open()).rejects.toThrow(
      /^operator "out": Redis at 127\.0\.0\.1:1 did not answer for [\d.]+ m?s while checking stream "s" \(retryTimeoutMs 500\): .*ECONNREFUSED/,
    );
  });

  it('testConnection says the server version and the stream, for the source and the sink', async () => {
    const stream = uniqueStream('test');
    const missing = uniqueStream('test-missing');
    await addJson(stream, [1, 2]);
    const source = (params: object) =>
      sourceRedisFactory.testConnection!({ url: REDIS_URL, ...params }, 'src');
    const sink = (params: object) => sinkRedisFactory.testConnection!({ url: REDIS_URL, ...params }, 'out');
    const version = /^Redis \d+\.\d+\.\d+ at 127\.0\.0\.1:6379 answers; /;
    expect(await source({ stream })).toEqual({ ok: true, message: expect.stringMatching(version) });
    expect((await source({ stream })).message).toContain(`stream "${stream}" has 2 entries`);
    expect(await source({ stream: missing })).toMatchObject({
      ok: false,
      message: expect.stringContaining(`stream "${missing}" does not exist`),
    });
    expect(await source({ stream: missing, startId: '$' })).toMatchObject({ ok: true });
    expect(await sink({ stream: missing })).toMatchObject({
      ok: true,
      message: expect.stringContaining('the first commit creates it'),
    });
    expect(await sink({ stream })).toMatchObject({
      ok: true,
      message: expect.stringContaining('has 2 entries'),
    });
    const text = uniqueStream('test-string');
    await (await redis()).set(text, 'x');
    expect(await sink({ stream: text })).toMatchObject({
      ok: false,
      message: expect.stringContaining('holds a string, not a stream'),
    });
    expect(await sink({ url: 'redis://127.0.0.1:1', stream })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Redis at 127\.0\.0\.1:1 does not answer: .*ECONNREFUSED/),
    });
  });
});
