package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/**
 * source.kafka as Flink's KafkaSource, honouring the local engine's params
 * (engine/graph/kinds/sourceKafka.ts; the CLI refuses those it cannot, engine/graph/flinkSupport.ts):
 *
 * <ul>
 *   <li>partitions dealt to subtasks by Flink's owner function, which the local engine copies
 *       (kafkaSplit.ts), their offsets in checkpoints; new partitions and topics found every
 *       `partitionDiscoveryMs` (default 5000, 0 never) and read from their earliest offset;
 *   <li>read at read_committed, as the local engine reads;
 *   <li>`startingOffsets` earliest (default), latest, committed (the group's, else earliest) or a
 *       timestamp; `stopAt` latest a bounded read (the job ends once every partition is read to
 *       where it stood when the job started);
 *   <li>`groupId`: offsets committed to the group once a checkpoint completes (Flink's
 *       commit.offsets.on.checkpoint); without it nothing is committed;
 *   <li>each record's text as KafkaRecordText makes it; a bad record fails the job without
 *       restarts with the local engine's line, or with `onBadRecord` "skip" is left out;
 *   <li>event time always, as locally: the record's Kafka timestamp, or its `timestampField`
 *       (a record without one fails the job, or with `onBadTimestamp` "skip" is left out), and
 *       watermarks made per subtask over all the partitions it reads, in the order it emits
 *       them (JobBuilder's kafkaSource).
 * </ul>
 */
final class KafkaSources {
  /** The local engine's partitionDiscoveryMs default (Flink's is five minutes). */
  private static final long DEFAULT_DISCOVERY_MS = 5_000;

  private KafkaSources() {}

  static KafkaSource<String> source(Plan.Operator op, String jobName) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    String servers = params.path("bootstrapServers").asText();
    KafkaSourceBuilder<String> builder = KafkaSource.<String>builder()
        .setBootstrapServers(servers)
        .setKafkaSubscriber(new KafkaTopics(op.id, servers, topics(params), pattern(op.id, params)))
        .setDeserializer(new Deserializer(op.id, new KafkaRecordText(
            !"string".equals(params.path("format").asText("json")),
            "json".equals(params.path("keyFormat").asText("string")),
            params.path("includeMetadata").asBoolean(false)),
            "skip".equals(params.path("onBadRecord").asText("fail")),
            op.timestampPath, "skip".equals(params.path("onBadTimestamp").asText("fail"))))
        .setStartingOffsets(startingOffsets(params, servers))
        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
        .setProperty(KafkaSourceOptions.CLIENT_ID_PREFIX.key(), "pipewright-" + jobName + "-" + op.id)
        .setProperty(KafkaSourceOptions.PARTITION_DISCOVERY_INTERVAL_MS.key(),
            Long.toString(params.path("partitionDiscoveryMs").asLong(DEFAULT_DISCOVERY_MS)));
    JsonNode group = params.path("groupId");
    // Without a group, KafkaSource commits nothing (it turns commit.offsets.on.checkpoint off).
    if (group.isTextual()) builder.setGroupId(group.asText());
    if ("latest".equals(params.path("stopAt").asText(null))) builder.setBounded(StableOffsets.latest(servers));
    return builder.build();
  }

  private static List<String> topics(JsonNode params) {
    List<String> topics = new ArrayList<>();
    if (params.path("topic").isTextual()) topics.add(params.path("topic").asText());
    for (JsonNode t : params.path("topics")) topics.add(t.asText());
    return topics;
  }

  /** topicPattern as a Java regular expression (the same as JavaScript's for the usual patterns). */
  private static Pattern pattern(String operatorId, JsonNode params) {
    JsonNode pattern = params.path("topicPattern");
    if (!pattern.isTextual()) return null;
    try {
      return Pattern.compile(pattern.asText());
    } catch (PatternSyntaxException e) {
      throw UserError.fail("operator \"" + operatorId + "\": params.topicPattern " + Json.quote(pattern.asText())
          + " is not a regular expression Java reads (" + e.getDescription() + ")");
    }
  }

  private static OffsetsInitializer startingOffsets(JsonNode params, String servers) {
    JsonNode starting = params.path("startingOffsets");
    if (starting.isObject()) return StableOffsets.at(servers, starting.path("timestamp").asLong());
    return switch (starting.asText("earliest")) {
      case "latest" -> StableOffsets.latest(servers);
      // A partition the group has no offset for starts at its earliest, as the local engine's.
      case "committed" -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
      default -> OffsetsInitializer.earliest();
    };
  }

  /** A Kafka record as its record text; a bad one fails the job (or, with "skip", is left out). */
  static final class Deserializer implements KafkaRecordDeserializationSchema<String> {
    private static final long serialVersionUID = 1L;
    private final String operatorId;
    private final KafkaRecordText shape;
    private final boolean skipBad;
    /** The record's `timestampField`, split at dots; null: its Kafka timestamp is its time. */
    private final String[] timestampPath;
    private final boolean skipBadTimestamp;

    Deserializer(String operatorId, KafkaRecordText shape, boolean skipBad, String[] timestampPath,
        boolean skipBadTimestamp) {
      this.operatorId = operatorId;
      this.shape = shape;
      this.skipBad = skipBad;
      this.timestampPath = timestampPath;
      this.skipBadTimestamp = skipBadTimestamp;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> out) {
      String text;
      try {
        text = shape.text(record.topic(), record.partition(), record.offset(), record.timestamp(), record.key(),
            record.value(), record.headers());
      } catch (KafkaRecordText.BadRecord bad) {
        if (skipBad) return;
        throw cannotRead(record, bad.getMessage());
      }
      if (timestampPath != null && !hasTime(record, text)) return;
      out.collect(text);
    }

    /** Whether the record has a time in its field; without one it is skipped or fails the job. */
    private boolean hasTime(ConsumerRecord<byte[], byte[]> record, String text) {
      long time;
      try {
        time = EventTimes.read(text, timestampPath);
      } catch (EventTimes.FractionalTime e) {
        throw cannotRead(record, "it has " + e.getMessage());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      if (time != EventTimes.NONE) return true;
      if (skipBadTimestamp) return false;
      throw cannotRead(record, "it has no timestamp in field \"" + String.join(".", timestampPath)
          + "\" (a number of ms or an ISO date)");
    }

    private RuntimeException cannotRead(ConsumerRecord<byte[], byte[]> record, String why) {
      return UserError.fail("operator \"" + operatorId + "\": Kafka topic \"" + record.topic() + "\" partition "
          + record.partition() + " offset " + record.offset() + " cannot be read: " + why);
    }

    @Override
    public TypeInformation<String> getProducedType() {
      return Types.STRING;
    }
  }
}
