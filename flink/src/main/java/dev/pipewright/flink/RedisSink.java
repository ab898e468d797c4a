package dev.pipewright.flink;

import java.io.IOException;
import java.util.Collection;
import java.util.UUID;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * sink.redis on Flink, exactly once on the local engine's contract (engine/operators/redis/
 * sinkRedis.ts): each record one entry of the stream with one field `json`, its text as it comes;
 * the writers keep what arrives between two checkpoints (RedisSinkWriter), and once a checkpoint
 * is complete the committer adds its entries and moves the marker in one MULTI/EXEC
 * (RedisCommitter), so a replay after a restore adds nothing. Entry ids are Redis's ("*"): the
 * stream's order is commit order, each subtask's records in their order.
 */
public final class RedisSink
    implements Sink<String>, SupportsWriterState<String, RedisCommittable.WriterState>,
        SupportsCommitter<RedisCommittable> {
  private static final long serialVersionUID = 1L;

  private final String operatorId;
  private final String url;
  private final String stream;
  private final long retryTimeoutMs;

  RedisSink(Plan.Operator op) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    this.operatorId = op.id;
    this.url = params.path("url").asText();
    this.stream = params.path("stream").asText();
    this.retryTimeoutMs = params.path("retryTimeoutMs").asLong(RedisConnection.DEFAULT_RETRY_TIMEOUT_MS);
  }

  @Override
  public SinkWriter<String> createWriter(WriterInitContext context) throws IOException {
    return restoreWriter(context, java.util.List.of());
  }

  @Override
  public StatefulSinkWriter<String, RedisCommittable.WriterState> restoreWriter(
      WriterInitContext context, Collection<RedisCommittable.WriterState> states) throws IOException {
    // One subtask asks, as locally: a key of another type fails the job before anything is read.
    if (context.getTaskInfo().getIndexOfThisSubtask() == 0) checkStream();
    if (states.size() == 1) {
      RedisCommittable.WriterState state = states.iterator().next();
      return new RedisSinkWriter(state.lineage, state.number);
    }
    return new RedisSinkWriter(UUID.randomUUID().toString(), 0);
  }

  private void checkStream() throws IOException {
    try (RedisConnection connection = new RedisConnection(operatorId, url, retryTimeoutMs)) {
      connection.run("checking stream \"" + stream + "\"", client -> {
        RedisCommitter.checkStreamOrNone(client, connection, stream);
        return null;
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while checking stream \"" + stream + "\"", e);
    }
  }

  @Override
  public SimpleVersionedSerializer<RedisCommittable.WriterState> getWriterStateSerializer() {
    return new RedisCommittable.WriterStateSerializer();
  }

  @Override
  public Committer<RedisCommittable> createCommitter(CommitterInitContext context) {
    return new RedisCommitter(operatorId, url, stream, retryTimeoutMs);
  }

  @Override
  public SimpleVersionedSerializer<RedisCommittable> getCommittableSerializer() {
    return new RedisCommittable.Serializer();
  }
}
