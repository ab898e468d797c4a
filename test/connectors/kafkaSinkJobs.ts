// The jobs the sink.kafka tests run: source.jsonl -> map -> sink.kafka, over an input of numbered
// records, and what their output must be.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type JobDocument, makeTempDir, writeJob } from '../cliHarness.js';
import { uniqueName } from './kafkaSinkTopic.js';

export const MAP_CODE =
  'function map(record) {\n  return { id: record.id, owner: record.owner, doubled: record.n * 2 };\n}';

export interface SinkJobShape {
  readonly brokers: string;
  readonly topic: string;
  readonly parallelism: number;
  readonly intervalMs: number;
  readonly guarantee?: 'exactly-once' | 'at-least-once';
  readonly retryTimeoutMs?: number;
  readonly transactionalIdPrefix?: string;
  readonly records: number;
  /** Records a second from a generator (the same records); undefined: the input file, as fast as it goes. */
  readonly ratePerSecond?: number;
}

/** The generator's records: the input file's, one by one. */
const GENERATE_CODE = "function generate(i) {\n  return { id: i, owner: 'o' + (i % 17), n: i * 3 };\n}";

export function inputRecords(count: number): { id: number; owner: string; n: number }[] {
  return Array.from({ length: count }, (_, id) => ({ id, owner: `o${id % 17}`, n: id * 3 }));
}

/** The map's output for `count` input records, as JSON text (what the topic's values hold). */
export function expectedValues(count: number): string[] {
  return inputRecords(count).map((r) => JSON.stringify({ id: r.id, owner: r.owner, doubled: r.n * 2 }));
}

export function sinkJob(shape: SinkJobShape, input: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'kafka-sink-test',
    settings: { checkpointIntervalMs: shape.intervalMs, checkpointsRetained: 3, maxParallelism: 32 },
    operators: [
      shape.ratePerSecond
        ? {
            id: 'events',
            kind: 'source.generator',
            parallelism: 1,
            params: { code: GENERATE_CODE, count: shape.records, ratePerSec: shape.ratePerSecond },
          }
        : { id: 'events', kind: 'source.jsonl', parallelism: 1, params: { path: input } },
      { id: 'double', kind: 'map', parallelism: shape.parallelism, params: { code: MAP_CODE } },
      {
        id: 'out',
        kind: 'sink.kafka',
        parallelism: shape.parallelism,
        params: {
          bootstrapServers: shape.brokers,
          topic: shape.topic,
          keyField: 'owner',
          ...(shape.guarantee ? { deliveryGuarantee: shape.guarantee } : {}),
          ...(shape.retryTimeoutMs !== undefined ? { retryTimeoutMs: shape.retryTimeoutMs } : {}),
          ...(shape.transactionalIdPrefix ? { transactionalIdPrefix: shape.transactionalIdPrefix } : {}),
        },
      },
    ],
    edges: [
      { id: 'events-double', from: 'events', to: 'double', partition: 'rebalance' },
      { id: 'double-out', from: 'double', to: 'out', partition: 'forward' },
    ],
  };
}

export interface SinkRun {
  readonly dir: string;
  readonly jobPath: string;
  readonly checkpointDir: string;
  readonly input: string;
}

export async function makeSinkRun(label: string, shape: SinkJobShape): Promise<SinkRun> {
  const dir = await makeTempDir(`pipewright-kafkasink-${label}-`);
  const input = path.join(dir, 'events.jsonl');
  writeFileSync(
    input,
    `${inputRecords(shape.records)
      .map((r) => JSON.stringify(r))
      .join('\n')}\n`,
  );
  const jobPath = path.join(dir, 'sink.job.json');
  // Transactional ids of this run's own: by default they are the job's and the operator's names,
  // the same in every run of these tests, and runs on the shared broker at the same time (other
  // test runs on the machine) would fence each other's producers.
  const transactionalIdPrefix = shape.transactionalIdPrefix ?? uniqueName('pw-tx');
  await writeJob(jobPath, sinkJob({ ...shape, transactionalIdPrefix }, input));
  return {
    dir,
    jobPath,
    input,
    checkpointDir: path.join(dir, '.pipewright', 'kafka-sink-test', 'checkpoints'),
  };
}
