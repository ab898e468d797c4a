#!/usr/bin/env node
// Baseline: the keyed read-modify-write from a Kafka topic to a Kafka topic, written by hand with
// the client the connectors use (@platformatic/kafka), at least once:
//   node bench/baselines/kafka-keyed-map.mjs --brokers host:port --in TOPIC --out TOPIC --group ID
// Reads the input topic from the start (read_committed) up to the offsets that were the latest
// when it started, keeps {n, sum} per key in a Map, sends {k, n, sum} keyed by k (idempotent
// producer, acks all) and, about every second, waits for the sends so far and commits the
// consumer group's offsets past what they came from: after a crash it would resume from the last
// commit and send some records again (at least once). Ends when every partition is read, sent
// and committed.
import {
  Consumer,
  FetchIsolationLevels,
  Producer,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { brokers: '', in: '', out: '', group: '', commitMs: 1000 });
const brokers = opt.brokers.split(',');

const consumer = new Consumer({
  clientId: 'bench-baseline-consumer',
  groupId: opt.group,
  bootstrapBrokers: brokers,
  deserializers: stringDeserializers,
  isolationLevel: FetchIsolationLevels.READ_COMMITTED,
  autocommit: false,
});
const producer = new Producer({
  clientId: 'bench-baseline-producer',
  bootstrapBrokers: brokers,
  serializers: stringSerializers,
  idempotent: true,
  acks: -1,
});

// Where each partition ends: the latest offsets now (as source.kafka's stopAt "latest").
const latest = (await consumer.listOffsets({ topics: [opt.in] })).get(opt.in);
const next = latest.map(() => 0n); // the next offset to read, per partition
const done = () => next.every((offset, partition) => offset >= latest[partition]);

const state = new Map();
// One send in flight at a time (the idempotent producer's sequence numbers must reach the broker
// in order; many concurrent sends got OUT_OF_ORDER_SEQUENCE_NUMBER): what is produced meanwhile
// waits in `batch` and goes in the next send, at most SEND_MAX records a send (the broker refuses
// a request over its message.max.bytes); reading waits while BACKLOG_MAX records wait.
const SEND_MAX = 5000;
const BACKLOG_MAX = 20_000;
let batch = [];
let inFlight;
let sendError;
let lastCommit = performance.now();

function pump() {
  if (inFlight !== undefined || batch.length === 0) return;
  const messages = batch.length <= SEND_MAX ? batch : batch.slice(0, SEND_MAX);
  batch = batch.length <= SEND_MAX ? [] : batch.slice(SEND_MAX);
  inFlight = producer.send({ messages }).then(
    () => {
      inFlight = undefined;
      pump();
    },
    (error) => {
      sendError = error;
      inFlight = undefined;
    },
  );
}

async function commit() {
  pump();
  while (inFlight !== undefined) await inFlight;
  if (sendError) throw sendError;
  await consumer.commit({
    offsets: next.map((offset, partition) => ({ topic: opt.in, partition, offset, leaderEpoch: -1 })),
  });
  lastCommit = performance.now();
}

if (!done()) {
  const stream = await consumer.consume({
    topics: [opt.in],
    mode: 'earliest',
    autocommit: false,
    maxWaitTime: 100,
  });
  for await (const message of stream) {
    const r = JSON.parse(message.value);
    let a = state.get(r.k);
    if (a === undefined) {
      a = { n: 0, sum: 0 };
      state.set(r.k, a);
    }
    a.n += 1;
    a.sum += r.v;
    batch.push({ topic: opt.out, key: r.k, value: JSON.stringify({ k: r.k, n: a.n, sum: a.sum }) });
    pump();
    while (batch.length >= BACKLOG_MAX && inFlight !== undefined) await inFlight;
    if (sendError) throw sendError;
    next[message.partition] = message.offset + 1n;
    if (performance.now() - lastCommit >= opt.commitMs) await commit();
    if (done()) break;
  }
  await stream.close();
}
await commit();
await consumer.close();
await producer.close();
