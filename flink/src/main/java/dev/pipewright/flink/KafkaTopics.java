package dev.pipewright.flink;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import org.apache.flink.connector.kafka.source.enumerator.subscriber.KafkaSubscriber;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The topics of a source.kafka (named, or every topic a pattern matches, new ones included) for
 * Flink's KafkaSource, and the check that a sink.kafka's topic exists. A named topic that does
 * not exist fails the job at once with the local engine's line (`operator "ID": Kafka topic "T"
 * does not exist at BROKERS`), without restarts: Flink's own subscriber fails with Kafka's words
 * and is restarted to fail alike.
 */
final class KafkaTopics implements KafkaSubscriber {
  private static final long serialVersionUID = 1L;

  private final String operatorId;
  private final String bootstrapServers;
  /** The named topics, or null when a pattern names them. */
  private final List<String> topics;
  private final Pattern pattern;

  KafkaTopics(String operatorId, String bootstrapServers, List<String> topics, Pattern pattern) {
    this.operatorId = operatorId;
    this.bootstrapServers = bootstrapServers;
    this.topics = topics;
    this.pattern = pattern;
  }

  @Override
  public Set<TopicPartition> getSubscribedTopicPartitions(AdminClient admin) {
    Set<String> names = new TreeSet<>();
    if (pattern == null) {
      names.addAll(topics);
    } else {
      // The whole name must match, as the local engine's ^(?:pattern)$ does.
      for (String name : get(admin.listTopics().names())) if (pattern.matcher(name).matches()) names.add(name);
    }
    Set<TopicPartition> partitions = new HashSet<>();
    for (TopicDescription topic : describe(admin, names, operatorId, bootstrapServers).values()) {
      for (TopicPartitionInfo p : topic.partitions()) partitions.add(new TopicPartition(topic.name(), p.partition()));
    }
    return partitions;
  }

  /** Fails the job with the local engine's line unless `topic` exists (sink.kafka, at its open). */
  static void requireTopic(String operatorId, String bootstrapServers, String topic) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    try (Admin admin = Admin.create(props)) {
      describe(admin, Set.of(topic), operatorId, bootstrapServers);
    }
  }

  private static Map<String, TopicDescription> describe(Admin admin, Set<String> names, String operatorId,
      String bootstrapServers) {
    Map<String, KafkaFuture<TopicDescription>> each = admin.describeTopics(names).topicNameValues();
    Map<String, TopicDescription> found = new TreeMap<>();
    for (String name : names) {
      try {
        found.put(name, get(each.get(name)));
      } catch (IllegalStateException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
        throw UserError.fail("operator \"" + operatorId + "\": Kafka topic \"" + name + "\" does not exist at "
            + bootstrapServers);
      }
    }
    return found;
  }

  private static <T> T get(KafkaFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking Kafka", e);
    } catch (ExecutionException e) {
      // Kafka's own words (an unreachable broker, a timeout): Flink restarts the job.
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    }
  }
}
