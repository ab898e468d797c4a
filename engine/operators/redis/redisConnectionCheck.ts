// The inspector's "Test connection" for source.redis and sink.redis: one attempt, no retries
// (the user is waiting), saying whether the server answers (its version) and what the stream is.
import type { ParamsOf } from '../../graph/schema.js';
import { describeCause } from '../connectors/serverRetry.js';
import type { ConnectionCheck } from '../kindFactory.js';
import { connectRedis, describeRedisServer, type RedisClient } from './redisConnection.js';

const CHECK_TIMEOUT_MS = 3_000;

/**
 * Asks the server for its version and the key's type: a stream answers with its length, a key of
 * another type is refused, and `whenMissing` says what a missing stream means to the kind.
 */
async function ask(
  url: string,
  stream: string,
  whenMissing: (answers: string) => ConnectionCheck,
): Promise<ConnectionCheck> {
  const server = describeRedisServer(url);
  let client: RedisClient | undefined;
  try {
    client = await connectRedis(url, CHECK_TIMEOUT_MS);
    const info = await client.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const answers = `Redis ${version} at ${server.slice('Redis at '.length)}`;
    const type = await client.type(stream);
    if (type === 'stream') {
      const length = await client.xLen(stream);
      return { ok: true, message: `${answers} answers; stream "${stream}" has ${length} entries` };
    }
    if (type !== 'none') {
      return { ok: false, message: `${answers} answers; key "${stream}" holds a ${type}, not a stream` };
    }
    return whenMissing(answers);
  } catch (error) {
    return { ok: false, message: `${server} does not answer: ${describeCause(error)}` };
  } finally {
    if (client?.isOpen) client.destroy();
  }
}

export function checkRedisSource(
  params: ParamsOf<'source.redis'>,
  _operatorId: string,
): Promise<ConnectionCheck> {
  return ask(params.url, params.stream, (answers) =>
    params.startId === '$'
      ? {
          ok: true,
          message: `${answers} answers; stream "${params.stream}" does not exist yet (startId "$" waits for it)`,
        }
      : { ok: false, message: `${answers} answers; stream "${params.stream}" does not exist` },
  );
}

export function checkRedisSink(
  params: ParamsOf<'sink.redis'>,
  _operatorId: string,
): Promise<ConnectionCheck> {
  return ask(params.url, params.stream, (answers) => ({
    ok: true,
    message: `${answers} answers; stream "${params.stream}" does not exist yet: the first commit creates it`,
  }));
}
