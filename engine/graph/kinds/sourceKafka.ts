// source.kafka: a Kafka topic's partitions as splits, their offsets in checkpoints (Flink's
// KafkaSource). Which of topic / topics / topicPattern, and groupId for "committed", is checked by
// its checkParams, below the schema.
import { z } from 'zod';
import { quote } from '../validation/valueWords.js';
import { connectionString, onBadRecord, retryTimeoutMs } from './connectorParams.js';
import { defineKind, type ParamProblem } from './kindDescriptor.js';
import { fieldPath, nonNegativeMs } from './paramTypes.js';

export const sourceKafkaKind = defineKind({
  kind: 'source.kafka',
  role: 'source',
  params: z.strictObject({
    bootstrapServers: connectionString('Kafka brokers, "host:port[,host:port...]"'),
    topic: z.string().min(1).optional().describe('The topic to read.'),
    topics: z.array(z.string().min(1)).min(1).optional().describe('Several topics to read.'),
    topicPattern: z
      .string()
      .min(1)
      .optional()
      .describe('A regular expression: every topic whose whole name it matches, new ones included.'),
    startingOffsets: z
      .union([
        z.enum(['earliest', 'latest', 'committed']),
        z.strictObject({ timestamp: z.number().int().min(0) }),
      ])
      .optional()
      .describe(
        'Where a fresh run starts: "earliest" (default), "latest", "committed" (groupId\'s offsets) or { "timestamp": ms }.',
      ),
    groupId: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Consumer group whose offsets the job commits after each checkpoint (and "committed" starts from).',
      ),
    stopAt: z
      .enum(['latest'])
      .optional()
      .describe(
        '"latest": a bounded read that ends at the offsets that were the latest when the job started.',
      ),
    format: z
      .enum(['json', 'string'])
      .optional()
      .describe('How a value is read: "json" (default) or "string".'),
    keyFormat: z
      .enum(['json', 'string'])
      .optional()
      .describe('How a key is read: "string" (default) or "json".'),
    includeMetadata: z
      .boolean()
      .optional()
      .describe(
        'Each record as { topic, partition, offset, timestamp, key, value, headers } instead of the value alone.',
      ),
    timestampField: fieldPath
      .optional()
      .describe('Event time from this field (default: the Kafka record timestamp).'),
    maxOutOfOrdernessMs: nonNegativeMs.optional(),
    idleTimeoutMs: nonNegativeMs.optional(),
    onBadTimestamp: z.enum(['fail', 'skip']).optional(),
    onBadRecord,
    partitionDiscoveryMs: nonNegativeMs
      .optional()
      .describe('How often to look for new partitions and topics (default 5000; 0: never).'),
    retryTimeoutMs,
  }),
  ports: { inputs: false, outputs: ['out'] },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Kafka topic',
    group: 'source',
    description: 'Reads Kafka topics, partitions spread over its subtasks, offsets kept in checkpoints.',
    idBase: 'kafka',
    defaultParams: { bootstrapServers: '${env:KAFKA_BROKERS}', topic: 'events' },
    icon: 'M8 2.5v11 M8 8l4.5-3 M8 8l4.5 3 M3.5 4.5a1.5 1.5 0 1 0 0 .01 M8 2.5a1 1 0 1 0 0 .01',
    connectionParams: ['bootstrapServers'],
  },
  checkParams: kafkaSourceProblems,
});

function isValidPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Exactly one of topic, topics and topicPattern; a pattern that compiles; a group to start "committed" from. */
function kafkaSourceProblems(params: Readonly<Record<string, unknown>>): ParamProblem[] {
  const problems: ParamProblem[] = [];
  const given = (['topic', 'topics', 'topicPattern'] as const).filter((name) => params[name] !== undefined);
  if (given.length === 0) {
    problems.push({
      code: 'required',
      path: ['topic'],
      message: 'a Kafka source needs params.topic, params.topics or params.topicPattern',
    });
  } else if (given.length > 1) {
    problems.push({
      code: 'invalid-value',
      path: [given[1]!],
      message: `params.${given[0]} and params.${given[1]} both name topics: give exactly one of topic, topics, topicPattern`,
    });
  }
  const pattern = params.topicPattern;
  if (typeof pattern === 'string' && pattern !== '' && !isValidPattern(pattern)) {
    problems.push({
      code: 'invalid-value',
      path: ['topicPattern'],
      message: `params.topicPattern ${quote(pattern)} is not a valid regular expression`,
    });
  }
  if (params.startingOffsets === 'committed' && params.groupId === undefined) {
    problems.push({
      code: 'required',
      path: ['groupId'],
      message:
        'startingOffsets "committed" needs params.groupId, the consumer group whose offsets it starts from',
    });
  }
  return problems;
}
