// Where sink.redis writes: the stream, and beside it the marker of what each run committed.
import { JobError } from '../../graph/jobError.js';
import type { RedisClient, RedisConnection } from './redisConnection.js';

/**
 * The hash beside the stream in which each run lineage of a sink (field "<operator>:<lineage>")
 * keeps the last checkpoint it committed ("end" once its bounded job ended). The braces make it
 * hash to the stream's slot, so a cluster could take both in one MULTI.
 */
export function markerKey(stream: string): string {
  return `pipewright:commits:{${stream}}`;
}

/** Fails, naming the key, when it holds something other than a stream; a missing one is created by the first XADD. */
export async function assertStreamOrNone(
  client: RedisClient,
  connection: RedisConnection,
  stream: string,
): Promise<void> {
  const type = await client.type(stream);
  if (type === 'none' || type === 'stream') return;
  throw new JobError(
    `operator "${connection.operatorId}": key "${stream}" at ${connection.server} holds a ${type}, not a stream`,
    connection.operatorId,
  );
}

export function checkSinkStream(connection: RedisConnection, stream: string): Promise<void> {
  return connection.run(`checking stream "${stream}"`, (client) =>
    assertStreamOrNone(client, connection, stream),
  );
}
