package dev.pipewright.flink;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * source.redis on Flink, on the local engine's contract (engine/operators/redis/sourceRedis.ts):
 * a Redis stream read by entry id, one split that subtask 0 reads (SubtaskZeroEnumerator), the last id
 * read in checkpoints (RedisSplit), each entry's record text as RedisRecordText makes it
 * (RedisReader). Bounded with stopAt "last", else it reads new entries as long as the job runs.
 * Flink has no Redis connector: the client is Jedis, shaded into the runner's jar.
 */
public final class RedisSource implements Source<String, RedisSplit, List<RedisSplit>> {
  private static final long serialVersionUID = 1L;

  final String operatorId;
  final String url;
  final String stream;
  final String startId;
  final boolean stopAtLast;
  final boolean skipBad;
  final long retryTimeoutMs;

  RedisSource(Plan.Operator op) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    this.operatorId = op.id;
    this.url = params.path("url").asText();
    this.stream = params.path("stream").asText();
    this.startId = params.path("startId").asText("0");
    this.stopAtLast = "last".equals(params.path("stopAt").asText(null));
    this.skipBad = "skip".equals(params.path("onBadRecord").asText("fail"));
    this.retryTimeoutMs = params.path("retryTimeoutMs").asLong(RedisConnection.DEFAULT_RETRY_TIMEOUT_MS);
  }

  @Override
  public Boundedness getBoundedness() {
    return stopAtLast ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<String, RedisSplit> createReader(SourceReaderContext context) {
    return new RedisReader(this);
  }

  @Override
  public SplitEnumerator<RedisSplit, List<RedisSplit>> createEnumerator(SplitEnumeratorContext<RedisSplit> context) {
    RedisSplit first = new RedisSplit(stream, startId, stopAtLast ? "last" : null, "$".equals(startId));
    return new SubtaskZeroEnumerator<>(context, List.of(first), RedisSplit::copy);
  }

  @Override
  public SplitEnumerator<RedisSplit, List<RedisSplit>> restoreEnumerator(
      SplitEnumeratorContext<RedisSplit> context, List<RedisSplit> pending) {
    return new SubtaskZeroEnumerator<>(context, pending, RedisSplit::copy);
  }

  @Override
  public SimpleVersionedSerializer<RedisSplit> getSplitSerializer() {
    return new RedisSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<List<RedisSplit>> getEnumeratorCheckpointSerializer() {
    return new RedisEnumerator.StateSerializer();
  }
}
