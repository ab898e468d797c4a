package dev.pipewright.flink;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * sink.kafka as Flink's KafkaSink, as the local engine writes (engine/operators/kafka/sink/):
 * exactly once by default, a transaction per subtask and checkpoint committed once the checkpoint
 * completes, with the transactional ids the local engine uses, `PREFIX-SUBTASK-CHECKPOINT`
 * (Flink's INCREMENTING naming; a start fences and aborts what a killed run left open under the
 * prefix, as both do); "at-least-once" flushes at every checkpoint instead. Each record is one
 * message of KafkaMessages' bytes, without a partition (the Kafka client places it by its key) or
 * a timestamp (the client's clock), as the local engine sends it.
 */
final class KafkaSinks {
  /** The broker's default transaction.max.timeout.ms, the local engine's default (Flink's is an hour, which a default broker refuses). */
  private static final long DEFAULT_TRANSACTION_TIMEOUT_MS = 900_000;

  private KafkaSinks() {}

  static KafkaSink<String> sink(Plan.Operator op, String jobName) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    String servers = params.path("bootstrapServers").asText();
    String topic = params.path("topic").asText();
    JsonNode keyField = params.path("keyField");
    KafkaMessages messages = new KafkaMessages("string".equals(params.path("format").asText("json")),
        keyField.isTextual() ? List.of(keyField.asText().split("\\.", -1)) : null);
    boolean exactlyOnce = "exactly-once".equals(params.path("deliveryGuarantee").asText("exactly-once"));
    return KafkaSink.<String>builder()
        .setBootstrapServers(servers)
        .setRecordSerializer(new Serializer(op.id, servers, topic, messages))
        .setDeliveryGuarantee(exactlyOnce ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
        .setTransactionalIdPrefix(params.path("transactionalIdPrefix").asText(defaultPrefix(jobName, op.id)))
        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
            Long.toString(params.path("transactionTimeoutMs").asLong(DEFAULT_TRANSACTION_TIMEOUT_MS)))
        .build();
  }

  /**
   * The local engine's default prefix (kafkaSinkSettings.ts): the job's run folder name
   * (engine/deploy/runDirs.ts jobFolderName) and the operator, so that another job's sink of the
   * same id does not fence this one's transactions.
   */
  static String defaultPrefix(String jobName, String operatorId) {
    // Char by char, as JavaScript's replace goes by UTF-16 unit: a character beyond the BMP is two.
    StringBuilder folder = new StringBuilder(jobName.length());
    boolean dotsOnly = true;
    for (int i = 0; i < jobName.length(); i++) {
      char c = jobName.charAt(i);
      boolean kept = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'
          || c == '.' || c == '-';
      folder.append(kept ? c : '_');
      if (!kept || c != '.') dotsOnly = false;
    }
    String name = dotsOnly ? folder.toString().replace('.', '_') : folder.toString();
    return name + "-" + operatorId;
  }

  /** A record's text as its message; at open, the topic must exist (the local engine's line). */
  static final class Serializer implements KafkaRecordSerializationSchema<String> {
    private static final long serialVersionUID = 1L;
    private final String operatorId;
    private final String servers;
    private final String topic;
    private final KafkaMessages messages;

    Serializer(String operatorId, String servers, String topic, KafkaMessages messages) {
      this.operatorId = operatorId;
      this.servers = servers;
      this.topic = topic;
      this.messages = messages;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
      // Flink's producer would wait max.block.ms for a missing topic, then fail to be restarted.
      KafkaTopics.requireTopic(operatorId, servers, topic);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(String text, KafkaSinkContext context, Long timestamp) {
      return new ProducerRecord<>(topic, null, null, messages.key(text), messages.value(text));
    }
  }
}
