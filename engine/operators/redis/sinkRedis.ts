// sink.redis: each record one entry of a Redis stream with one field "json", exactly once. The
// writers hold what arrives between two barriers (redisSinkWriter.ts); once a checkpoint is
// complete the committer appends its entries and a marker of it in one MULTI/EXEC
// (redisCommitter.ts), so a replay after a restore adds nothing. Entry ids are Redis's ("*"):
// the stream's order is commit order, and within a commit subtask order.
import type { ParamsOf } from '../../graph/schema.js';
import type { KindFactory } from '../kindFactory.js';
import { RedisCommitter } from './redisCommitter.js';
import { RedisConnection } from './redisConnection.js';
import { checkRedisSink } from './redisConnectionCheck.js';
import { RedisSinkWriter } from './redisSinkWriter.js';

export const sinkRedisFactory: KindFactory = {
  role: 'sink',
  createSink: ({ planned, checkpoints }) => {
    const params = planned.operator.params as ParamsOf<'sink.redis'>;
    const id = planned.operator.id;
    const connection = new RedisConnection(params.url, id, params.retryTimeoutMs, undefined);
    return {
      createWriter: (env) =>
        new RedisSinkWriter(
          env,
          new RedisConnection(params.url, id, params.retryTimeoutMs, env.reportWait),
          params.stream,
          checkpoints?.firstId ?? 0,
        ),
      committer: new RedisCommitter(connection, params.stream, checkpoints?.files),
    };
  },
  testConnection: (params, operatorId) => checkRedisSink(params as ParamsOf<'sink.redis'>, operatorId),
};
