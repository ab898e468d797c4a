package dev.pipewright.flink;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Committer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.XAddParams;

/**
 * sink.redis's committer, as the local engine's (engine/operators/redis/redisCommitter.ts): once
 * a checkpoint is complete, each committable's entries and the marker of it go to Redis in one
 * MULTI/EXEC under WATCH of the marker hash, so a commit done twice (a restore redoing it, a retry
 * after a reply lost with the connection) adds nothing the second time. The marker is the local
 * one, the hash `pipewright:commits:{STREAM}`, field `<operator>:<lineage>`; its value here is the
 * number of the writer's last commit (RedisCommittable), or "end" once its input has ended.
 * Flink commits a writer's committables in checkpoint order, so a number at or below the marker's
 * is in the stream already.
 */
final class RedisCommitter implements Committer<RedisCommittable> {
  private static final String ENDED = "end";

  private final String stream;
  private final RedisConnection connection;

  RedisCommitter(String operatorId, String url, String stream, long retryTimeoutMs) {
    this.stream = stream;
    this.connection = new RedisConnection(operatorId, url, retryTimeoutMs);
  }

  /** The hash beside the stream that keeps what each lineage committed (redisSinkStream.ts). */
  static String markerKey(String stream) {
    return "pipewright:commits:{" + stream + "}";
  }

  /** A marker's value as a number: none is 0, "end" is past every number. */
  static long markerValue(String text) {
    if (text == null) return 0;
    return ENDED.equals(text) ? Long.MAX_VALUE : Long.parseLong(text);
  }

  @Override
  public void commit(Collection<CommitRequest<RedisCommittable>> requests) throws InterruptedException {
    try {
      for (CommitRequest<RedisCommittable> request : requests) apply(request.getCommittable());
    } finally {
      connection.release();
    }
  }

  private void apply(RedisCommittable c) throws InterruptedException {
    String key = markerKey(stream);
    String field = connection.operatorId + ":" + c.lineage;
    String what = c.end ? "the end of the job" : "commit " + c.number;
    connection.run("committing " + what + " to stream \"" + stream + "\"", client -> {
      for (;;) {
        client.watch(key);
        if (markerValue(client.hget(key, field)) >= c.number) {
          client.unwatch();
          return null;
        }
        checkStreamOrNone(client, connection, stream);
        Transaction multi = client.multi();
        for (String entry : c.entries) multi.xadd(stream, XAddParams.xAddParams(), Map.of("json", entry));
        multi.hset(key, field, c.end ? ENDED : Long.toString(c.number));
        List<Object> done = multi.exec();
        // Null: someone else's commit moved the marker hash between WATCH and EXEC; read it again.
        if (done != null) return null;
      }
    });
  }

  /** Fails, naming the key, when it holds something other than a stream; a missing one the first XADD makes. */
  static void checkStreamOrNone(Jedis client, RedisConnection connection, String stream) {
    String type = client.type(stream);
    if (type.equals("none") || type.equals("stream")) return;
    throw UserError.fail("operator \"" + connection.operatorId + "\": key \"" + stream + "\" at " + connection.server
        + " holds a " + type + ", not a stream");
  }

  @Override
  public void close() {
    connection.close();
  }
}
