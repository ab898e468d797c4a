// source.kafka's Node side: the Source (splits, enumerator, readers; see kafkaSplit.ts) and the
// inspector's "Test connection". Every record carries its Kafka timestamp (or timestampField) as
// event time, so the Source always has an event time: watermarks are made per subtask, from the
// records of all the partitions it reads, in the order it emits them.
import type { ParamsOf } from '../../../graph/schema.js';
import type { Source } from '../../../runtime/source.js';
import type { ConnectionCheck, KindFactory } from '../../kindFactory.js';
import { KafkaSourceBroker } from './kafkaSourceBroker.js';
import { KafkaSourceReader } from './kafkaSourceReader.js';
import { type KafkaSplit, kafkaEnumerator, kafkaSplitSerializer } from './kafkaSplit.js';

export function kafkaSource(params: ParamsOf<'source.kafka'>): Source<KafkaSplit> {
  return {
    eventTime: { maxOutOfOrdernessMs: params.maxOutOfOrdernessMs ?? 0, idleTimeoutMs: params.idleTimeoutMs },
    waitsOnWorld: true,
    splitKind: 'source.kafka',
    serializer: kafkaSplitSerializer,
    enumerator: kafkaEnumerator,
    createReader: (env) => new KafkaSourceReader(env, params),
  };
}

/** Whether the broker answers and the topics (or the pattern's) exist, with their partitions. */
async function testConnection(
  raw: Readonly<Record<string, unknown>>,
  operatorId: string,
): Promise<ConnectionCheck> {
  const params = raw as ParamsOf<'source.kafka'>;
  // A test waits a few seconds for an unreachable broker, not the run's retryTimeoutMs.
  const broker = new KafkaSourceBroker({
    operatorId,
    bootstrapServers: params.bootstrapServers,
    retryTimeoutMs: 3_000,
  });
  try {
    let topics = params.topics ?? (params.topic !== undefined ? [params.topic] : []);
    if (params.topicPattern !== undefined) {
      const pattern = new RegExp(`^(?:${params.topicPattern})$`);
      topics = (await broker.listTopics()).filter((t) => pattern.test(t)).sort();
      if (topics.length === 0) {
        return { ok: false, message: `${broker.server} answers; no topic matches /${params.topicPattern}/` };
      }
    }
    const layouts = await broker.layout(topics);
    const described = [...layouts].map(
      ([topic, layout]) =>
        `topic "${topic}" has ${layout.leaders.length} partition${layout.leaders.length === 1 ? '' : 's'}`,
    );
    return { ok: true, message: `${broker.server} answers; ${described.join(', ')}` };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    await broker.close();
  }
}

export const sourceKafkaFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned }) =>
    kafkaSource(planned.operator.params as ParamsOf<'source.kafka'>) as Source<unknown>,
  testConnection,
};
