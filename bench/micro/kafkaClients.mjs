#!/usr/bin/env node
// Micro-benchmark: the Kafka client the connectors use (@platformatic/kafka, pure JavaScript)
// against a librdkafka-based one (node-rdkafka), on the same broker in the same run: producing
// (idempotent, acks all), producing in transactions, and consuming read_committed.
//
//   node bench/micro/kafkaClients.mjs [--records N] [--brokers host:port] [--rdkafka DIR]
//
// The librdkafka clients cannot be installed from the npm registry alone: their install script
// downloads a prebuilt binary (or librdkafka's dependencies) from GitHub. To measure one here,
// build node-rdkafka 2.15 (the last on librdkafka 2.0, Debian 12's version) against Debian's
// library and point --rdkafka at it:
//   apt-get install -y librdkafka-dev
//   npm install --ignore-scripts node-rdkafka@2.15.0 (in a scratch folder), then in it:
//   BUILD_LIBRDKAFKA=0 node-gyp rebuild --nodedir=/usr
// Without --rdkafka only the client the connectors use is measured.
//
// Prints a table on stderr and one JSON object on stdout.
import { createRequire } from 'node:module';
import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const RECORDS = Number(arg('records', '200000'));
const BROKERS = arg('brokers', process.env.PIPEWRIGHT_KAFKA_BROKERS ?? 'localhost:9092');
const RDKAFKA = arg('rdkafka', undefined);
const TX_SIZE = 10_000;
const CHUNK = 2_000;

// ~100-byte JSON values, as the engine benchmarks' records.
const value = (i) => JSON.stringify({ id: i, key: `k${i % 10_000}`, amount: i % 997, note: 'x'.repeat(40) });

async function createTopic(name) {
  const admin = new Admin({ clientId: 'bench', bootstrapBrokers: BROKERS.split(',') });
  await admin.createTopics({ topics: [name], partitions: 1, replicas: 1 });
  await admin.close();
}

async function timed(fn) {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

const platformatic = {
  name: '@platformatic/kafka 1.35 (pure JS)',
  async produce(topic, transactional) {
    const producer = new Producer({
      clientId: 'bench-p',
      bootstrapBrokers: BROKERS.split(','),
      serializers: stringSerializers,
      idempotent: true,
      acks: -1,
      ...(transactional ? { transactionalId: `bench-${topic}` } : {}),
    });
    let tx;
    for (let i = 0; i < RECORDS; i += CHUNK) {
      if (transactional && i % TX_SIZE === 0) tx = await producer.beginTransaction();
      const messages = [];
      for (let j = i; j < Math.min(i + CHUNK, RECORDS); j++)
        messages.push({ topic, key: `k${j}`, value: value(j) });
      await (transactional ? tx.send({ messages }) : producer.send({ messages }));
      if (transactional && (i + CHUNK) % TX_SIZE === 0) await tx.commit();
    }
    if (transactional && RECORDS % TX_SIZE !== 0) await tx.commit();
    await producer.close();
  },
  async consume(topic) {
    const consumer = new Consumer({
      clientId: 'bench-c',
      groupId: `bench-${topic}-${Date.now()}`,
      bootstrapBrokers: BROKERS.split(','),
      deserializers: stringDeserializers,
      isolationLevel: 'READ_COMMITTED',
    });
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
    let n = 0;
    for await (const message of stream) {
      if (message.value.length === 0) throw new Error('empty value');
      if (++n === RECORDS) break;
    }
    await stream.close();
    await consumer.close();
  },
};

function rdkafkaClient(dir) {
  const Kafka = createRequire(`${dir}/`)('node-rdkafka');
  return {
    name: `node-rdkafka (librdkafka ${Kafka.librdkafkaVersion})`,
    async produce(topic, transactional) {
      const producer = new Kafka.Producer({
        'metadata.broker.list': BROKERS,
        'enable.idempotence': true,
        'linger.ms': 5,
        dr_cb: false,
        ...(transactional ? { 'transactional.id': `bench-rd-${topic}` } : {}),
      });
      await new Promise((resolve, reject) => producer.connect({}, (e) => (e ? reject(e) : resolve())));
      const call = (method, ...rest) =>
        new Promise((resolve, reject) => producer[method](...rest, (e) => (e ? reject(e) : resolve())));
      if (transactional) await call('initTransactions', 30_000);
      for (let i = 0; i < RECORDS; i++) {
        if (transactional && i % TX_SIZE === 0) await call('beginTransaction');
        for (;;) {
          try {
            producer.produce(topic, null, Buffer.from(value(i)), `k${i}`);
            break;
          } catch (error) {
            if (error.code !== Kafka.CODES.ERRORS.ERR__QUEUE_FULL) throw error;
            producer.poll();
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        }
        if (transactional && (i + 1) % TX_SIZE === 0) await call('commitTransaction', 30_000);
      }
      if (transactional && RECORDS % TX_SIZE !== 0) await call('commitTransaction', 30_000);
      await call('flush', 60_000);
      await new Promise((resolve) => producer.disconnect(resolve));
    },
    async consume(topic) {
      const consumer = new Kafka.KafkaConsumer(
        {
          'metadata.broker.list': BROKERS,
          'group.id': `bench-rd-${topic}-${Date.now()}`,
          'isolation.level': 'read_committed',
          'enable.auto.commit': false,
        },
        { 'auto.offset.reset': 'earliest' },
      );
      await new Promise((resolve, reject) => consumer.connect({}, (e) => (e ? reject(e) : resolve())));
      consumer.assign([{ topic, partition: 0, offset: 0 }]);
      let n = 0;
      while (n < RECORDS) {
        const batch = await new Promise((resolve, reject) =>
          consumer.consume(10_000, (e, messages) => (e ? reject(e) : resolve(messages))),
        );
        for (const message of batch) if (message.value.length > 0) n++;
      }
      await new Promise((resolve) => consumer.disconnect(resolve));
    },
  };
}

const clients = [platformatic, ...(RDKAFKA === undefined ? [] : [rdkafkaClient(RDKAFKA)])];
const results = [];
const run = `${Date.now()}`;
for (const client of clients) {
  const row = { client: client.name };
  for (const transactional of [false, true]) {
    const topic = `bench-clients-${run}-${results.length}-${transactional ? 'tx' : 'plain'}`;
    await createTopic(topic);
    const produceS = await timed(() => client.produce(topic, transactional));
    row[transactional ? 'produceTx' : 'produce'] = Math.round(RECORDS / produceS);
    if (transactional) {
      const consumeS = await timed(() => client.consume(topic));
      row.consumeReadCommitted = Math.round(RECORDS / consumeS);
    }
  }
  results.push(row);
}
process.stderr.write(
  `${RECORDS} records of ~100 bytes, records/s (transactions of ${TX_SIZE}):\n` +
    results
      .map(
        (r) =>
          `  ${r.client}: produce ${r.produce}, produce in transactions ${r.produceTx}, consume read_committed ${r.consumeReadCommitted}`,
      )
      .join('\n') +
    '\n',
);
process.stdout.write(`${JSON.stringify({ records: RECORDS, results })}\n`);
