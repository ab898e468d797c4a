import { describe, expect, it } from 'vitest';
import type { FlinkPlan } from '../../graph/flinkPlan.js';
import { flinkCheckpointEvent, flinkMetricsEvent, metricIdsOf, vertexOperators } from './flinkLiveFigures.js';

const plan = {
  maxParallelism: 128,
  operators: [
    { id: 'in', kind: 'source.jsonl' },
    { id: 'keep', kind: 'filter' },
    { id: 'count', kind: 'process' },
    { id: 'out', kind: 'sink.jsonl' },
  ],
  edges: [
    { id: 'e1', from: 'in', to: 'keep', partition: 'forward' },
    // An edge named like an operator: the runner's step for it is named so too.
    { id: 'count', from: 'keep', to: 'count', partition: 'hash', key: 'k' },
    { id: 'e3', from: 'count', to: 'out', partition: 'rebalance' },
  ],
} as unknown as FlinkPlan;

const vertices = [
  { id: 'v1', name: 'Source: in -> keep -> count', parallelism: 1 },
  { id: 'v2', name: 'count', parallelism: 2 },
  { id: 'v3', name: 'out -> out: Writer -> out: Committer', parallelism: 1 },
];

describe('Flink figures in the live panels', () => {
  it("finds each operator's vertex by the chain's names, a first name before a later one", () => {
    const found = vertexOperators(vertices, plan);
    expect(found.map((v) => v.operators.map((o) => o.metricName))).toEqual([
      ['Source__in', 'keep'],
      ['count'],
      ['out'],
    ]);
    expect(metricIdsOf(found[1]!)).toEqual([
      '0.busyTimeMsPerSecond',
      '0.backPressuredTimeMsPerSecond',
      '0.idleTimeMsPerSecond',
      '0.count.numRecordsIn',
      '0.count.numRecordsOut',
      '1.busyTimeMsPerSecond',
      '1.backPressuredTimeMsPerSecond',
      '1.idleTimeMsPerSecond',
      '1.count.numRecordsIn',
      '1.count.numRecordsOut',
    ]);
  });

  it("takes a chain's ends from its network records and the rest from operator metrics; time per task", () => {
    const found = vertexOperators(vertices, plan);
    const samples = new Map([
      [
        'v1',
        {
          // Stale operator metrics: the network counts win at the chain's ends.
          metrics: new Map([
            ['0.Source__in.numRecordsOut', 90],
            ['0.keep.numRecordsIn', 90],
            ['0.keep.numRecordsOut', 40],
            ['0.busyTimeMsPerSecond', 700],
            ['0.backPressuredTimeMsPerSecond', 300],
            ['0.idleTimeMsPerSecond', 0],
          ]),
          records: [{ subtask: 0, read: 0, written: 50 }],
        },
      ],
      [
        'v2',
        {
          metrics: new Map([
            ['0.backPressuredTimeMsPerSecond', 10],
            ['1.backPressuredTimeMsPerSecond', 20],
          ]),
          records: [
            { subtask: 0, read: 20, written: 20 },
            { subtask: 1, read: 30, written: 30 },
          ],
        },
      ],
    ]);
    const event = flinkMetricsEvent('r', plan, found, samples, 1234);
    const op = (id: string) => event.operators.find((o) => o.id === id)!;
    expect([op('in').recordsIn, op('in').recordsOut]).toEqual([90, 90]);
    expect([op('keep').recordsIn, op('keep').recordsOut]).toEqual([90, 50]);
    expect(op('in').subtasks[0]).toMatchObject({
      busyTimeMsPerSecond: 700,
      backPressuredTimeMsPerSecond: 300,
      idleTimeMsPerSecond: 0,
      keyGroups: [0, 127],
    });
    expect(op('count').subtasks.map((s) => [s.recordsIn, s.keyGroups])).toEqual([
      [20, [0, 63]],
      [30, [64, 127]],
    ]);
    // Nothing sampled of the sink's vertex yet: zeros, and no time measured.
    expect(op('out').subtasks[0]).toEqual({
      subtask: 0,
      recordsIn: 0,
      recordsOut: 0,
      queued: 0,
      keyGroups: [0, 127],
    });
    expect(event.edges).toEqual([
      { id: 'e1', from: 'in', backPressuredTimeMsPerSecond: 300 },
      { id: 'count', from: 'keep', backPressuredTimeMsPerSecond: 300 },
      { id: 'e3', from: 'count', backPressuredTimeMsPerSecond: 20 },
    ]);
    expect(event.elapsedMs).toBe(1234);
  });

  it("lists a checkpoint's subtasks under each chain's first operator, and a failure's reason", () => {
    const found = vertexOperators(vertices, plan);
    const subtasks = new Map([
      [
        'v2',
        [
          {
            index: 1,
            checkpointed_size: 70,
            state_size: 700,
            checkpoint: { sync: 3, async: 4 },
            alignment: { duration: 5 },
          },
        ],
      ],
    ]);
    const base = {
      id: 7,
      trigger_timestamp: Date.UTC(2026, 11, 7),
      end_to_end_duration: 42,
      checkpointed_size: 70,
      state_size: 700,
    };
    expect(flinkCheckpointEvent('r', { ...base, status: 'COMPLETED' }, subtasks, found)).toEqual({
      runId: 'r',
      id: 7,
      status: 'completed',
      triggeredAt: '2026-12-07T00:00:00.000Z',
      durationMs: 42,
      bytes: 70,
      fullBytes: 700,
      inFlightRecords: 0,
      subtasks: [
        { operator: 'count', subtask: 1, bytes: 70, fullBytes: 700, syncMs: 3, asyncMs: 4, alignmentMs: 5 },
      ],
    });
    const failed = flinkCheckpointEvent(
      'r',
      { ...base, status: 'FAILED', failure_message: 'Checkpoint expired before completing.' },
      new Map(),
      found,
    );
    expect([failed.status, failed.reason, failed.subtasks]).toEqual([
      'failed',
      'Checkpoint expired before completing.',
      [],
    ]);
  });
});
