// sink.kafka's Node side: its writers and committer (exactly once or at least once), and the
// inspector's "Test connection": does the broker answer, does the topic exist.
import { Producer } from '@platformatic/kafka';
import type { ParamsOf } from '../../../graph/schema.js';
import type { ConnectionCheck, KindFactory } from '../../kindFactory.js';
import { kafkaClientOptions, kafkaServerName } from '../kafkaClientOptions.js';
import { describeKafkaError, isMissingTopic } from '../kafkaErrors.js';
import { KafkaSinkCommitter } from './kafkaSinkCommitter.js';
import { kafkaSinkSettings } from './kafkaSinkSettings.js';
import { KafkaSinkWriter } from './kafkaSinkWriter.js';

export const sinkKafkaFactory: KindFactory = {
  role: 'sink',
  createSink: (context) => {
    const params = context.planned.operator.params as ParamsOf<'sink.kafka'>;
    const settings = kafkaSinkSettings(context);
    return {
      createWriter: (env) => new KafkaSinkWriter(env, params, settings),
      committer: new KafkaSinkCommitter(settings, params.retryTimeoutMs),
    };
  },
  testConnection: (params, operatorId) => testKafkaTopic(params as ParamsOf<'sink.kafka'>, operatorId),
};

async function testKafkaTopic(params: ParamsOf<'sink.kafka'>, operatorId: string): Promise<ConnectionCheck> {
  const server = kafkaServerName(params.bootstrapServers);
  const client = new Producer({
    ...kafkaClientOptions(`pipewright-${operatorId}-test`, params.bootstrapServers),
    timeout: 5_000,
  });
  try {
    const metadata = await client.metadata({ topics: [params.topic] });
    const partitions = metadata.topics.get(params.topic)?.partitionsCount ?? 0;
    return {
      ok: true,
      message: `${server} answers; topic "${params.topic}" has ${partitions} partition${partitions === 1 ? '' : 's'}`,
    };
  } catch (error) {
    if (isMissingTopic(error))
      return { ok: false, message: `${server} answers; topic "${params.topic}" does not exist` };
    return { ok: false, message: `${server} does not answer: ${describeKafkaError(error)}` };
  } finally {
    await client.close().catch(() => {});
  }
}
