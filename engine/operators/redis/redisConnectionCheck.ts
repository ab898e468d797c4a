// The inspector's "Test connection" for source.redis and sink.redis: one attempt, no retries
// (the user is waiting), saying whether the server answers (its version) and what the stream is.
import type { ParamsOf } from '../../graph/schema.js';
import { describeCause } from '../connectors/serverRetry.js';
import type { ConnectionCheck } from '../kindFactory.js';
import { connectRedis, describeRedisServer, type RedisClient } from './redisConnection.js';

const CHECK_TIMEOUT_MS = 3_000;

type StreamState =
  | { readonly type: 'none' }
  | { readonly type: 'stream'; readonly length: number }
  | { readonly type: string };

async function ask(
  url: string,
  stream: string,
  describe: (version: string, state: StreamState) => ConnectionCheck,
): Promise<ConnectionCheck> {
  const server = describeRedisServer(url);
  let client: RedisClient | undefined;
  try {
    client = await connectRedis(url, CHECK_TIMEOUT_MS);
    const info = await client.info('server');
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
    const type = await client.type(stream);
    const state: StreamState = type === 'stream' ? { type, length: await client.xLen(stream) } : { type };
    return describe(`Redis ${version} at ${server.slice('Redis at '.length)}`, state);
  } catch (error) {
    return { ok: false, message: `${server} does not answer: ${describeCause(error)}` };
  } finally {
    if (client?.isOpen) client.destroy();
  }
}

function wrongType(answers: string, stream: string, type: string): ConnectionCheck {
  return { ok: false, message: `${answers} answers; key "${stream}" holds a ${type}, not a stream` };
}

export function checkRedisSource(
  params: ParamsOf<'source.redis'>,
  _operatorId: string,
): Promise<ConnectionCheck> {
  return ask(params.url, params.stream, (answers, state) => {
    if (state.type === 'stream' && 'length' in state)
      return {
        ok: true,
        message: `${answers} answers; stream "${params.stream}" has ${state.length} entries`,
      };
    if (state.type !== 'none') return wrongType(answers, params.stream, state.type);
    return params.startId === '$'
      ? {
          ok: true,
          message: `${answers} answers; stream "${params.stream}" does not exist yet (startId "$" waits for it)`,
        }
      : { ok: false, message: `${answers} answers; stream "${params.stream}" does not exist` };
  });
}

export function checkRedisSink(
  params: ParamsOf<'sink.redis'>,
  _operatorId: string,
): Promise<ConnectionCheck> {
  return ask(params.url, params.stream, (answers, state) => {
    if (state.type === 'stream' && 'length' in state)
      return {
        ok: true,
        message: `${answers} answers; stream "${params.stream}" has ${state.length} entries`,
      };
    if (state.type !== 'none') return wrongType(answers, params.stream, state.type);
    return {
      ok: true,
      message: `${answers} answers; stream "${params.stream}" does not exist yet: the first commit creates it`,
    };
  });
}
