// What the Redis connector tests share: a client to the test server, stream names unique to a
// test (deleted with their commit markers after the file), and the contents of a stream.
import { randomBytes } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { markerKey } from '../../engine/operators/redis/redisSinkStream.js';
import { REDIS_URL } from './servers.js';

let client: RedisClientType | undefined;
const made: string[] = [];

export async function redis(): Promise<RedisClientType> {
  if (client === undefined) {
    client = createClient({ url: REDIS_URL }) as RedisClientType;
    client.on('error', () => {});
    await client.connect();
  }
  return client;
}

/** A stream name no other test uses; removed, with its marker, by `dropStreams`. */
export function uniqueStream(label: string): string {
  const name = `pipewright-test-${label}-${randomBytes(5).toString('hex')}`;
  made.push(name);
  return name;
}

/** Call in afterAll. */
export async function dropStreams(): Promise<void> {
  if (client === undefined) return;
  const names = made.splice(0);
  if (names.length > 0) await client.del([...names, ...names.map(markerKey)]);
  await client.quit();
  client = undefined;
}

export interface StreamEntry {
  readonly id: string;
  readonly message: Record<string, string>;
}

export async function entriesOf(stream: string): Promise<StreamEntry[]> {
  return (await (await redis()).xRange(stream, '-', '+')) as unknown as StreamEntry[];
}

/** The "json" field of every entry, as the text the sink wrote. */
export async function jsonOf(stream: string): Promise<string[]> {
  return (await entriesOf(stream)).map((e) => e.message.json!);
}

/** Adds each value as an entry with one field "json"; the ids, in order. */
export async function addJson(stream: string, values: readonly unknown[]): Promise<string[]> {
  const c = await redis();
  const ids: string[] = [];
  for (let at = 0; at < values.length; at += 1000) {
    const multi = c.multi();
    for (const value of values.slice(at, at + 1000)) multi.xAdd(stream, '*', { json: JSON.stringify(value) });
    ids.push(...((await multi.exec()) as unknown as string[]));
  }
  return ids;
}
