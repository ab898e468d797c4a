import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { flinkPlan, flinkWorkerCommand } from './flinkPlan.js';
import { flinkRefusals } from './flinkSupport.js';
import type { Job } from './schema.js';
import { validateJob } from './validation/validateJob.js';

function job(text: unknown): Job {
  const { job, problems } = validateJob(text);
  expect(problems).toEqual([]);
  return job!;
}

const example = (name: string) =>
  job(
    JSON.parse(
      readFileSync(new URL(`../../assets/examples/${name}/${name}.job.json`, import.meta.url), 'utf8'),
    ),
  );

const base = {
  format: 'pipewright.job/1',
  name: 'j',
  operators: [
    { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
    {
      id: 'p',
      kind: 'process',
      parallelism: 2,
      params: { code: 'function process(r, ctx) { ctx.emit(r); }' },
    },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out/o.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'src', to: 'p', partition: 'hash', key: 'k' },
    { id: 'e2', from: 'p', to: 'out', partition: 'rebalance' },
  ],
};

describe('flinkRefusals', () => {
  it('lets word-count, bar-state and owner-has-items (a loop) through, and refuses transactions', () => {
    expect(flinkRefusals(example('word-count'))).toEqual([]);
    expect(flinkRefusals(example('bar-state'))).toEqual([]);
    expect(flinkRefusals(example('owner-has-items'))).toEqual([]);
    expect(flinkRefusals(example('ledger')).map((p) => p.message)).toEqual([
      'operator "ledger": transaction cannot run on Flink yet (transactions on Flink are the next issue)',
    ]);
  });

  it('names the operator, param or edge it refuses, one line each', () => {
    const refused = flinkRefusals(
      job({
        ...base,
        operators: [
          {
            id: 'src',
            kind: 'source.jsonl',
            params: { path: 'in.jsonl', timestampField: 't', onBadTimestamp: 'skip' },
          },
          {
            id: 'w',
            kind: 'window',
            params: {
              type: 'tumbling',
              sizeMs: 1000,
              aggregate: 'code',
              code: 'function createAccumulator() { return 0; }\nfunction add(a) { return a + 1; }\nfunction merge(a, b) { return a + b; }\nfunction result(a) { return a; }',
            },
          },
          base.operators[1],
          base.operators[2],
        ],
        edges: [
          { id: 'e0', from: 'src', to: 'w', partition: 'hash', key: 'k' },
          { id: 'e1', from: 'src', to: 'p', partition: 'hash', key: 'k' },
          { id: 'e3', from: 'src', to: 'p', partition: 'rebalance' },
          base.edges[1],
        ],
      }),
    );
    // The window's code aggregate and onBadTimestamp "skip" run on Flink: not refused.
    expect(refused.map((p) => [p.code, p.ids, p.path])).toEqual([
      ['flink-mixed-inputs', ['p', 'e3'], '$.operators[2]'],
    ]);
    expect(refused[0]!.message).toBe(
      'operator "p": its inputs mix hash edges with edge "e3" (rebalance), which Flink cannot key as one stream',
    );
  });
});

/** A process `name` keyed on k, fed back into itself by edge `name`-back. */
const loopOperator = (id: string, kind = 'process') => ({
  id,
  kind,
  parallelism: 2,
  params:
    kind === 'window'
      ? { type: 'tumbling', sizeMs: 1000, aggregate: 'count' }
      : { code: `function ${kind}(r, ctx) { ctx.emit(r); }` },
});
const back = (id: string) => ({
  id: `${id}-back`,
  from: id,
  to: id,
  partition: 'hash',
  key: 'k',
  feedback: true,
});

describe('flinkRefusals of loops', () => {
  it('refuses a second loop head, a head that is not a worker, a head with non-hash inputs', () => {
    const refused = flinkRefusals(
      job({
        ...base,
        operators: [
          base.operators[0],
          loopOperator('a'),
          loopOperator('b'),
          loopOperator('w', 'window'),
          loopOperator('r', 'map'),
          base.operators[2],
        ],
        edges: [
          { id: 'e1', from: 'src', to: 'a', partition: 'hash', key: 'k' },
          { id: 'e2', from: 'a', to: 'b', partition: 'hash', key: 'k' },
          { id: 'e3', from: 'b', to: 'w', partition: 'hash', key: 'k' },
          { id: 'e4', from: 'b', to: 'r', partition: 'rebalance' },
          { id: 'e5', from: 'r', to: 'out', partition: 'rebalance' },
          back('a'),
          back('b'),
          back('w'),
          back('r'),
        ],
      }),
    );
    expect(refused.map((p) => [p.code, p.ids])).toEqual([
      ['flink-loops', ['b']],
      ['flink-loops', ['w']],
      ['flink-loop-head', ['w']],
      ['flink-loops', ['r']],
      ['flink-loop-inputs', ['r', 'e4']],
    ]);
    expect(refused.map((p) => p.message)).toEqual([
      'operator "b": a second loop head (after "a") cannot run on Flink yet (one loop head operator per job)',
      'operator "w": a second loop head (after "a") cannot run on Flink yet (one loop head operator per job)',
      'operator "w": a window cannot head a loop on Flink yet (only map, filter, flatMap and process)',
      'operator "r": a second loop head (after "a") cannot run on Flink yet (one loop head operator per job)',
      'operator "r": a loop head\'s inputs must be hash edges on Flink, edge "e4" is rebalance',
    ]);
  });
});

const kafkaJob = (source: Record<string, unknown>, sink: Record<string, unknown>) =>
  job({
    ...base,
    operators: [
      { id: 'in', kind: 'source.kafka', params: { bootstrapServers: 'localhost:9092', ...source } },
      base.operators[1],
      { id: 'out', kind: 'sink.kafka', params: { bootstrapServers: 'localhost:9092', topic: 'o', ...sink } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'p', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'p', to: 'out', partition: 'rebalance' },
    ],
  });

describe('flinkRefusals of the Kafka kinds', () => {
  it("lets source.kafka and sink.kafka through with the params Flink's connector honours", () => {
    expect(
      flinkRefusals(
        kafkaJob(
          {
            topicPattern: 'in-.*',
            startingOffsets: { timestamp: 1 },
            groupId: 'g',
            stopAt: 'latest',
            format: 'string',
            keyFormat: 'json',
            includeMetadata: true,
            onBadRecord: 'skip',
            partitionDiscoveryMs: 0,
          },
          {
            keyField: 'a.b',
            deliveryGuarantee: 'at-least-once',
            format: 'string',
            transactionalIdPrefix: 'x',
            transactionTimeoutMs: 60000,
          },
        ),
      ),
    ).toEqual([]);
    expect(flinkRefusals(kafkaJob({ topic: 'i', startingOffsets: 'committed', groupId: 'g' }, {}))).toEqual(
      [],
    );
  });

  it('runs their event-time params and refuses their retry params, one line each', () => {
    const refused = flinkRefusals(
      kafkaJob(
        { topic: 'i', timestampField: 't', maxOutOfOrdernessMs: 5, idleTimeoutMs: 9, retryTimeoutMs: 1 },
        { retryTimeoutMs: 1 },
      ),
    );
    expect(refused.map((p) => [p.code, p.ids, p.path])).toEqual([
      ['flink-param', ['in'], '$.operators[0].params.retryTimeoutMs'],
      ['flink-param', ['out'], '$.operators[2].params.retryTimeoutMs'],
    ]);
    expect(refused.map((p) => p.message)).toEqual([
      `operator "in": params.retryTimeoutMs cannot run on Flink yet (on Flink the Kafka client's own timeouts and Flink's restarts decide how long an unreachable broker is waited for)`,
      `operator "out": params.retryTimeoutMs cannot run on Flink yet (on Flink the Kafka client's own timeouts and Flink's restarts decide how long an unreachable broker is waited for)`,
    ]);
  });
});

describe('flinkRefusals of the Redis kinds', () => {
  it('lets source.redis and sink.redis through with every param the local kinds have', () => {
    const redis = { url: 'redis://127.0.0.1:6379', retryTimeoutMs: 5000 };
    expect(
      flinkRefusals(
        job({
          ...base,
          operators: [
            {
              id: 'in',
              kind: 'source.redis',
              params: { ...redis, stream: 'i', startId: '$', stopAt: 'last', onBadRecord: 'skip' },
            },
            base.operators[1],
            { id: 'out', kind: 'sink.redis', parallelism: 2, params: { ...redis, stream: 'o' } },
          ],
          edges: [
            { id: 'e1', from: 'in', to: 'p', partition: 'hash', key: 'k' },
            { id: 'e2', from: 'p', to: 'out', partition: 'forward' },
          ],
        }),
      ),
    ).toEqual([]);
  });
});

const postgresJob = (sink: Record<string, unknown>) =>
  job({
    ...base,
    operators: [
      base.operators[0],
      base.operators[1],
      { id: 'out', kind: 'sink.postgres', params: { connection: 'postgres://u@h/db', table: 't', ...sink } },
    ],
  });

describe('flinkRefusals of sink.postgres', () => {
  it('lets upsert and append through, and refuses retryTimeoutMs naming the operator', () => {
    expect(flinkRefusals(postgresJob({ mode: 'upsert', keyColumns: ['id'] }))).toEqual([]);
    expect(flinkRefusals(postgresJob({ mode: 'append' }))).toEqual([]);
    const refused = flinkRefusals(postgresJob({ mode: 'append', retryTimeoutMs: 1000 }));
    expect(refused.map((p) => [p.code, p.ids, p.path, p.message])).toEqual([
      [
        'flink-param',
        ['out'],
        '$.operators[2].params.retryTimeoutMs',
        `operator "out": params.retryTimeoutMs cannot run on Flink yet (on Flink a server that does not answer fails the subtask, and Flink's restarts from the last checkpoint decide how long it is waited for)`,
      ],
    ]);
  });
});

const sourceJob = (source: Record<string, unknown>) =>
  job({
    ...base,
    operators: [{ id: 'src', ...source }, base.operators[1], base.operators[2]],
  });

describe('flinkRefusals of the sources made in a worker', () => {
  it('lets source.generator through, with event time, and both at a ratePerSec', () => {
    const generate = 'function generate(i) { return { i, t: i }; }';
    expect(
      flinkRefusals(
        sourceJob({
          kind: 'source.generator',
          params: {
            code: generate,
            count: 5,
            seed: 1,
            timestampField: 't',
            maxOutOfOrdernessMs: 2,
            ratePerSec: 9,
          },
        }),
      ),
    ).toEqual([]);
    expect(flinkRefusals(sourceJob({ kind: 'source.nexmark', params: { count: 5, ratePerSec: 9 } }))).toEqual(
      [],
    );
  });
});

describe('flinkRefusals of source.postgres', () => {
  const sourceJob = (params: Record<string, unknown>) =>
    job({
      ...base,
      operators: [
        {
          id: 'src',
          kind: 'source.postgres',
          params: { connection: 'postgres://u@h/db', table: 't', ...params },
        },
        base.operators[1],
        base.operators[2],
      ],
    });

  it('lets the snapshot, the changes and a bounded read through, and refuses retryTimeoutMs', () => {
    expect(flinkRefusals(sourceJob({}))).toEqual([]);
    expect(
      flinkRefusals(sourceJob({ snapshot: false, stopAt: 'current', slot: 's', publication: 'p' })),
    ).toEqual([]);
    const refused = flinkRefusals(sourceJob({ retryTimeoutMs: 1000 }));
    expect(refused.map((p) => [p.code, p.ids, p.path])).toEqual([
      ['flink-param', ['src'], '$.operators[0].params.retryTimeoutMs'],
    ]);
  });
});

describe('flinkPlan', () => {
  it("keeps the job's operators and edges, paths made absolute, checkpoints never off", () => {
    const plan = flinkPlan(job({ ...base, settings: { checkpointIntervalMs: 0, maxParallelism: 64 } }), {
      resolvePath: (path) => `/jobs/${path}`,
      sinkDir: (path) => `${path}.parts`,
      workerCommand: ['node', '/w.mjs'],
    });
    expect(plan.format).toBe('pipewright.flink-plan/1');
    expect(plan.maxParallelism).toBe(64);
    expect(plan.checkpointIntervalMs).toBe(1000);
    expect(plan.operators.map((o) => [o.id, o.parallelism, (o.params as { path?: string }).path])).toEqual([
      ['src', 1, '/jobs/in.jsonl'],
      ['p', 2, undefined],
      ['out', 1, '/jobs/out/o.jsonl'],
    ]);
    expect(plan.sinkDirs).toEqual({ out: '/jobs/out/o.jsonl.parts' });
    expect(plan.edges[0]).toMatchObject({ id: 'e1', partition: 'hash', key: 'k', fromPort: 'out' });
    expect(plan.worker.command).toEqual(['node', '/w.mjs']);
  });

  it("names the jar's worker, {worker}: a cluster's node from its PATH, the MiniCluster's the CLI's", () => {
    expect(flinkWorkerCommand(true, '/opt/node/bin/node')).toEqual(['node', '{worker}']);
    expect(flinkWorkerCommand(false, '/opt/node/bin/node')).toEqual(['/opt/node/bin/node', '{worker}']);
    const plan = flinkPlan(job(base), {
      resolvePath: (p) => `/jobs/${p}`,
      sinkDir: (p) => p,
      workerCommand: flinkWorkerCommand(true, process.execPath),
    });
    expect(plan.worker.command).toEqual(['node', '{worker}']);
    // Nothing of the CLI's machine but the job's own files: no node, no checkout's dist/.
    expect(JSON.stringify(plan)).not.toContain(process.execPath);
    expect(JSON.stringify(plan)).not.toMatch(/dist\/flink|flinkWorker/);
  });

  it('sets every parallelism to --parallelism', () => {
    const plan = flinkPlan(job(base), {
      resolvePath: (p) => p,
      sinkDir: (p) => p,
      workerCommand: [],
      parallelism: 3,
    });
    expect(plan.operators.map((o) => o.parallelism)).toEqual([3, 3, 3]);
    expect(plan.checkpointIntervalMs).toBe(1000);
  });
});
