// source.redis's reader against a real Redis: the record contract (an entry whose one field is
// "json" is that JSON value, any other its fields), where reading starts ("0", "$", an id) and
// ends (stopAt "last", resolved at the first open and kept in the split), a restore from a
// snapshot's split resuming right after the last entry emitted, an unbounded read that waits on
// the server for new entries, and its errors.
import { afterAll, expect, it } from 'vitest';
import { JobError } from '../../engine/graph/jobError.js';
import type { PlannedOperator } from '../../engine/graph/plan.js';
import type { ParamsOf } from '../../engine/graph/schema.js';
import { type RedisSplit, redisSource } from '../../engine/operators/redis/sourceRedis.js';
import type { Emitter } from '../../engine/runtime/emitter.js';
import type { SubtaskEnvironment } from '../../engine/runtime/operatorLogic.js';
import { describeRecordSource, type RecordSource } from '../../engine/runtime/recordSource.js';
import { addJson, dropStreams, redis, uniqueStream } from './redisStreams.js';
import { describeWithServer, REDIS_URL } from './servers.js';

afterAll(dropStreams);

class CollectingEmitter {
  readonly lineage: { timestamp: number | undefined; source: RecordSource | undefined; position: number } = {
    timestamp: undefined,
    source: undefined,
    position: 0,
  };
  blocked = false;
  recordsSkipped = 0;
  readonly values: unknown[] = [];
  readonly at: string[] = [];
  emit(value: unknown): void {
    this.values.push(value);
    this.at.push(describeRecordSource(this.lineage.source!, this.lineage.position));
  }
}

type Params = Omit<ParamsOf<'source.redis'>, 'url'> & { url?: string };

function reader(params: Params, subtask = 0, parallelism = 1) {
  const full = { url: REDIS_URL, ...params } as ParamsOf<'source.redis'>;
  const source = redisSource(full);
  const emitter = new CollectingEmitter();
  const env = {
    operator: {
      id: 'src',
      parallelism,
      operator: { id: 'src', kind: 'source.redis', params: full },
    } as unknown as PlannedOperator,
    subtask,
    parallelism,
    jobDir: '.',
    emitter: emitter as unknown as Emitter,
    state: undefined,
    current: undefined,
    input: undefined,
    watermark: Number.NEGATIVE_INFINITY,
    timers: undefined,
    checkpoints: undefined,
  } satisfies SubtaskEnvironment;
  return { source, reader: source.createReader(env), emitter };
}

/** Opens subtask `subtask`'s reader with the enumerator's splits (or `restored`) and reads it to its end. */
async function readAll(params: Params, restored?: readonly RedisSplit[]): Promise<CollectingEmitter> {
  const { source, reader: r, emitter } = reader(params);
  await r.open(source.enumerator.assign(1, restored)[0]!);
  try {
    while ((await r.poll(7)) >= 0);
  } finally {
    await r.close();
  }
  return emitter;
}

async function failure(params: Params, poll = true): Promise<JobError> {
  const { source, reader: r } = reader(params);
  try {
    await r.open(source.enumerator.assign(1, undefined)[0]!);
    if (poll) while ((await r.poll(100)) >= 0);
  } catch (error) {
    expect(error).toBeInstanceOf(JobError);
    return error as JobError;
  } finally {
    await r.close();
  }
  throw new Error('expected the source to fail');
}

await describeWithServer('redis', 'source.redis reading a stream', () => {
  it('gives an entry whose one field is "json" as that value, any other entry as its fields', async () => {
    const stream = uniqueStream('contract');
    const c = await redis();
    await c.xAdd(stream, '*', { json: '{"a":1,"b":[true,null]}' });
    await c.xAdd(stream, '*', { json: '"text"' });
    await c.xAdd(stream, '*', { name: 'ada', age: '36' });
    // "json" beside another field is not the JSON form: both are fields.
    await c.xAdd(stream, '*', { json: 'not json', other: 'x' });
    const read = await readAll({ stream, stopAt: 'last' });
    expect(read.values).toEqual([
      { a: 1, b: [true, null] },
      'text',
      { name: 'ada', age: '36' },
      { json: 'not json', other: 'x' },
    ]);
    expect(read.at[0]).toMatch(new RegExp(`^stream "${stream}" entry at ms \\d+$`));
  });

  it('starts after "0" (all), after an explicit id, and with "$" only at entries added after the first open', async () => {
    const stream = uniqueStream('start');
    const ids = await addJson(stream, [0, 1, 2, 3]);
    expect((await readAll({ stream, stopAt: 'last' })).values).toEqual([0, 1, 2, 3]);
    expect((await readAll({ stream, startId: '0', stopAt: 'last' })).values).toEqual([0, 1, 2, 3]);
    expect((await readAll({ stream, startId: ids[1]!, stopAt: 'last' })).values).toEqual([2, 3]);
    expect((await readAll({ stream, startId: '$', stopAt: 'last' })).values).toEqual([]);

    const { source, reader: r, emitter } = reader({ stream, startId: '$' });
    await r.open(source.enumerator.assign(1, undefined)[0]!);
    // "$" was resolved at the open and the split keeps it: a restore starts there too.
    const [split] = r.snapshotSplits(1);
    expect(split).toMatchObject({ stream, lastId: ids[3] });
    await addJson(stream, [4, 5]);
    while (emitter.values.length < 2) await r.poll(10);
    await r.close();
    expect(emitter.values).toEqual([4, 5]);
  });

  it('with stopAt "last" ends at the entry that was last at the first open, even on a restore after more were added', async () => {
    const stream = uniqueStream('stop');
    await addJson(stream, [0, 1, 2, 3, 4]);
    const { source, reader: r, emitter } = reader({ stream, stopAt: 'last' });
    await r.open(source.enumerator.assign(1, undefined)[0]!);
    expect(await r.poll(2)).toBe(2);
    const snapshot = r.snapshotSplits(1);
    await r.close();
    expect(emitter.values).toEqual([0, 1]);
    await addJson(stream, [5, 6]);
    // The restored reader resumes right after entry 1 and stops at 4, however many came since.
    expect((await readAll({ stream, stopAt: 'last' }, snapshot)).values).toEqual([2, 3, 4]);
  });

  it('resumes, restored from a snapshot taken mid-batch (the emitter blocked), right after the last entry emitted', async () => {
    const stream = uniqueStream('restore');
    await addJson(
      stream,
      Array.from({ length: 30 }, (_, i) => i),
    );
    const { source, reader: r, emitter } = reader({ stream, stopAt: 'last' });
    await r.open(source.enumerator.assign(1, undefined)[0]!);
    const emit = emitter.emit.bind(emitter);
    emitter.emit = (value) => {
      emit(value);
      emitter.blocked = emitter.values.length === 12;
    };
    // One read of up to 100 entries; the emitter blocks after the 12th.
    expect(await r.poll(100)).toBe(12);
    const snapshot = r.snapshotSplits(1);
    await r.close();
    const rest = await readAll({ stream, stopAt: 'last' }, snapshot);
    expect([...emitter.values, ...rest.values]).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('unbounded, waits on the server for new entries (XREAD BLOCK), and a poll in flight gets the entry added meanwhile', async () => {
    const stream = uniqueStream('wait');
    await addJson(stream, [0]);
    const { source, reader: r, emitter } = reader({ stream });
    await r.open(source.enumerator.assign(1, undefined)[0]!);
    expect(await r.poll(10)).toBe(1);
    let count = 0;
    const pending = (async () => {
      while (count === 0) count = await r.poll(10);
    })();
    // The reader's connection is blocked in XREAD on the server (a client with flag "b"), not
    // asking again and again.
    const c = await redis();
    for (let i = 0; ; i++) {
      const clients = (await c.clientList()) as unknown as { cmd: string; flags: string }[];
      if (clients.some((client) => client.cmd === 'xread' && client.flags.includes('b'))) break;
      expect(i, 'no client blocked in XREAD').toBeLessThan(500);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await addJson(stream, [1]);
    await pending;
    await r.close();
    expect(emitter.values).toEqual([0, 1]);
  });

  it('with parallelism 3 subtask 0 reads the whole stream and the others end at once', async () => {
    const stream = uniqueStream('parallel');
    await addJson(stream, [0, 1, 2]);
    const full = { url: REDIS_URL, stream, stopAt: 'last' } as ParamsOf<'source.redis'>;
    const dealt = redisSource(full).enumerator.assign(3, undefined);
    expect(dealt.map((splits) => splits.length)).toEqual([1, 0, 0]);
    const { reader: other } = reader({ stream, stopAt: 'last' }, 1, 3);
    await other.open(dealt[1]!);
    expect(await other.poll(10)).toBe(-1);
    expect(other.snapshotSplits(1)).toEqual([]);
    await other.close();
  });

  it('fails naming the operator, the stream and the entry id when a "json" field is not JSON; onBadRecord "skip" skips and counts it', async () => {
    const stream = uniqueStream('bad');
    const c = await redis();
    await addJson(stream, [0]);
    const bad = await c.xAdd(stream, '*', { json: '{"a":' });
    await addJson(stream, [2]);
    const error = await failure({ stream, stopAt: 'last' });
    expect(error.message).toContain('operator "src"');
    expect(error.message).toContain(`stream "${stream}" entry ${bad}`);
    expect(error.message).toContain('not valid JSON');
    const skipped = await readAll({ stream, stopAt: 'last', onBadRecord: 'skip' });
    expect(skipped.values).toEqual([0, 2]);
    expect(skipped.recordsSkipped).toBe(1);
  });

  it('fails at open naming a missing stream (not with startId "$", which waits for it) and a key that is not a stream', async () => {
    const missing = uniqueStream('missing');
    const error = await failure({ stream: missing }, false);
    expect(error.message).toBe(
      `operator "src": stream "${missing}" does not exist at Redis at 127.0.0.1:6379`,
    );
    expect((await readAll({ stream: missing, startId: '$', stopAt: 'last' })).values).toEqual([]);

    const text = uniqueStream('string');
    await (await redis()).set(text, 'hello');
    const wrong = await failure({ stream: text }, false);
    expect(wrong.message).toBe(
      `operator "src": key "${text}" at Redis at 127.0.0.1:6379 holds a string, not a stream`,
    );

    const badId = await failure({ stream: missing, startId: 'yesterday' }, false);
    expect(badId.message).toContain('startId "yesterday" is not a stream entry id');
  });

  it('fails after retryTimeoutMs, naming the operator and the server, when the server does not answer', async () => {
    // Nothing listens on port 1: refused at once, every attempt.
    const { source, reader: r } = reader({ url: 'redis://127.0.0.1:1', stream: 's', retryTimeoutMs: 300 });
    const error = await r.open(source.enumerator.assign(1, undefined)[0]!).then(
      () => undefined,
      (e: unknown) => e,
    );
    await r.close();
    expect(error).toBeInstanceOf(JobError);
    expect((error as Error).message).toMatch(
      /^operator "src": Redis at 127\.0\.0\.1:1 did not answer for [\d.]+ m?s while opening stream "s" \(retryTimeoutMs 300\): .*ECONNREFUSED/,
    );
  });
});
