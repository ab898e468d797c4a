// sink.kafka: records to a Kafka topic; exactly once through a transactional producer per subtask
// (a transaction per checkpoint, committed when the checkpoint completes), as Flink's KafkaSink.
import { z } from 'zod';
import { connectionString, retryTimeoutMs } from './connectorParams.js';
import { defineKind } from './kindDescriptor.js';
import { fieldPath, nonNegativeMs } from './paramTypes.js';

export const sinkKafkaKind = defineKind({
  kind: 'sink.kafka',
  role: 'sink',
  params: z.strictObject({
    bootstrapServers: connectionString('Kafka brokers, "host:port[,host:port...]"'),
    topic: z.string().min(1).describe('The topic to write.'),
    keyField: fieldPath.optional().describe("The record field whose value is the Kafka record's key."),
    deliveryGuarantee: z
      .enum(['exactly-once', 'at-least-once'])
      .optional()
      .describe('"exactly-once" (default): a transaction per checkpoint; "at-least-once": plain sends.'),
    format: z
      .enum(['json', 'string'])
      .optional()
      .describe('How a value is written: "json" (default) or "string".'),
    transactionalIdPrefix: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Start of the transactional ids (default: the job and operator); unique per job writing a cluster.',
      ),
    transactionTimeoutMs: nonNegativeMs
      .optional()
      .describe(
        'The broker aborts a transaction open this long (default 900000); keep it above checkpoint interval plus restore time.',
      ),
    retryTimeoutMs,
  }),
  ports: { inputs: true, outputs: [] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Kafka topic',
    group: 'sink',
    description: 'Writes records to a Kafka topic, exactly once by default: a transaction per checkpoint.',
    idBase: 'kafka-out',
    defaultParams: { bootstrapServers: '${env:KAFKA_BROKERS}', topic: 'results' },
    icon: 'M8 2.5v11 M8 8l4.5-3 M8 8l4.5 3 M3.5 4.5a1.5 1.5 0 1 0 0 .01 M8 2.5a1 1 0 1 0 0 .01',
    connectionParams: ['bootstrapServers'],
  },
});
