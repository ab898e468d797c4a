package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * source.kafka's "latest" and `{timestamp}` offsets (where a fresh run starts, and where a
 * bounded read stops) as the local engine finds them: asked at read_committed, so "latest" is a
 * partition's last stable offset, before any transaction still open, and a timestamp's offset
 * is one a read_committed reader can reach (none: the last stable offset). Flink's own
 * initializers ask at read_uncommitted (the high watermark): a bounded read would then wait on,
 * and read, a transaction that was open when the job started, which the local engine leaves out.
 */
final class StableOffsets implements OffsetsInitializer {
  private static final long serialVersionUID = 1L;

  private final String bootstrapServers;
  /** Null: the latest offsets. */
  private final Long timestamp;

  private StableOffsets(String bootstrapServers, Long timestamp) {
    this.bootstrapServers = bootstrapServers;
    this.timestamp = timestamp;
  }

  static StableOffsets latest(String bootstrapServers) {
    return new StableOffsets(bootstrapServers, null);
  }

  static StableOffsets at(String bootstrapServers, long timestamp) {
    return new StableOffsets(bootstrapServers, timestamp);
  }

  @Override
  public Map<TopicPartition, Long> getPartitionOffsets(Collection<TopicPartition> partitions,
      PartitionOffsetsRetriever unused) {
    Map<TopicPartition, Long> offsets = new HashMap<>();
    if (partitions.isEmpty()) return offsets;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    try (Admin admin = Admin.create(props)) {
      List<TopicPartition> atEnd = new ArrayList<>(partitions);
      if (timestamp != null) {
        atEnd.clear();
        for (Map.Entry<TopicPartition, Long> e : list(admin, partitions, OffsetSpec.forTimestamp(timestamp)).entrySet()) {
          if (e.getValue() >= 0) offsets.put(e.getKey(), e.getValue());
          else atEnd.add(e.getKey());
        }
      }
      if (!atEnd.isEmpty()) offsets.putAll(list(admin, atEnd, OffsetSpec.latest()));
    }
    return offsets;
  }

  private static Map<TopicPartition, Long> list(Admin admin, Collection<TopicPartition> partitions, OffsetSpec spec) {
    Map<TopicPartition, OffsetSpec> asked = new HashMap<>();
    for (TopicPartition tp : partitions) asked.put(tp, spec);
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answered;
    try {
      answered = admin.listOffsets(asked, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing Kafka offsets", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot list the Kafka offsets of " + partitions, e.getCause());
    }
    Map<TopicPartition, Long> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      ListOffsetsResult.ListOffsetsResultInfo info = answered.get(tp);
      offsets.put(tp, info == null ? -1L : info.offset());
    }
    return offsets;
  }

  /** Where the consumer goes when an offset is out of range: the end, as Flink's latest and timestamp do. */
  @Override
  public OffsetResetStrategy getAutoOffsetResetStrategy() {
    return OffsetResetStrategy.LATEST;
  }
}
