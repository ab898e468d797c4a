// source.nexmark as its subtasks run it (the generic reader logic over its enumerator and
// reader, with a stand-in emitter): event n is the same at any parallelism, each subtask's
// records come in event-time order with their time on the lineage, and a restore at another
// parallelism makes exactly the events a checkpoint left.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlannedOperator } from '../graph/plan.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import type { Emitter } from '../runtime/emitter.js';
import type { OperatorLogic, SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { describeRecordSource, type RecordSource } from '../runtime/recordSource.js';
import type { Source } from '../runtime/source.js';
import { nexmarkConfig } from './nexmark/nexmarkConfig.js';
import { nexmarkEvent } from './nexmark/nexmarkEvent.js';
import type { NexmarkRecord } from './nexmark/nexmarkRecords.js';
import { loadFactories, prepareOperator } from './registry.js';
import { sourceNexmarkFactory } from './sourceNexmark.js';

interface Made {
  value: NexmarkRecord;
  position: number;
  timestamp: number | undefined;
  at: string;
}

class CollectingEmitter {
  readonly lineage: { timestamp: number | undefined; source: RecordSource | undefined; position: number } = {
    timestamp: undefined,
    source: undefined,
    position: 0,
  };
  readonly blocked = false;
  readonly made: Made[] = [];
  emit(value: unknown): void {
    const { source, position, timestamp } = this.lineage;
    this.made.push({
      value: value as NexmarkRecord,
      position,
      timestamp,
      at: describeRecordSource(source!, position),
    });
  }
}

const planned = (params: object, parallelism: number) =>
  ({
    id: 'nex',
    parallelism,
    operator: { id: 'nex', kind: 'source.nexmark', params },
  }) as unknown as PlannedOperator;

function subtasks(
  params: object,
  parallelism: number,
  restored?: readonly ConnectorState[],
): { logic: OperatorLogic; emitter: CollectingEmitter }[] {
  const operator = planned(params, parallelism);
  const prepared = prepareOperator(operator, '.', undefined, restored);
  return Array.from({ length: parallelism }, (_, subtask) => {
    const emitter = new CollectingEmitter();
    const env = {
      operator,
      subtask,
      parallelism,
      jobDir: '.',
      emitter: emitter as unknown as Emitter,
      state: undefined,
      current: undefined,
      input: undefined,
      watermark: Number.NEGATIVE_INFINITY,
      timers: undefined,
      checkpoints: undefined,
    } as unknown as SubtaskEnvironment;
    return { logic: prepared.create(env), emitter };
  });
}

async function drain(logic: OperatorLogic, batch = 97): Promise<void> {
  while ((await logic.produce(batch)) >= 0);
}

/** Every subtask's records, by subtask, at `parallelism`. */
async function run(params: object, parallelism: number): Promise<Made[][]> {
  const all = subtasks(params, parallelism);
  for (const { logic } of all) {
    await logic.open();
    await drain(logic);
    await logic.endInput();
  }
  return all.map(({ emitter }) => emitter.made);
}

const byPosition = (made: Made[]) => [...made].sort((a, b) => a.position - b.position);

// Its factory loads on demand, as a run loads it (kindFactories.ts).
beforeAll(() => loadFactories(['source.nexmark']));

describe('source.nexmark', () => {
  const params = { count: 2000, seed: 3, eventsPerSec: 500 };

  it('makes events 0 to count - 1 of the stream, the same at parallelism 1 and 3', async () => {
    const [one] = await run(params, 1);
    const three = (await run(params, 3)).flat();
    expect(one!.map((m) => m.position)).toEqual(Array.from({ length: 2000 }, (_, n) => n));
    expect(byPosition(three)).toEqual(one);
    const config = nexmarkConfig({ seed: 3, eventsPerSec: 500 });
    expect(one![1234]!.value).toEqual(nexmarkEvent(config, 1234));
    expect(one![7]!.at).toBe('nexmark "nex" event 7');
  });

  it('gives each record its dateTime as event time, in order within each subtask', async () => {
    for (const made of await run(params, 3)) {
      expect(made.length).toBeGreaterThan(600);
      for (let i = 0; i < made.length; i++) {
        expect(made[i]!.timestamp).toBe(made[i]!.value.dateTime);
        if (i > 0) expect(made[i]!.timestamp!).toBeGreaterThanOrEqual(made[i - 1]!.timestamp!);
      }
    }
  });

  it('tells the engine its records carry event time, with the bound it was given', () => {
    const source = (maxOutOfOrdernessMs?: number) =>
      sourceNexmarkFactory.role === 'source'
        ? (sourceNexmarkFactory.createSource({
            planned: planned({ count: 1, maxOutOfOrdernessMs }, 1),
            jobDir: '.',
            jobName: 'nexmark',
            checkpoints: undefined,
          }) as Source<unknown>)
        : undefined;
    expect(source()?.eventTime).toEqual({ maxOutOfOrdernessMs: 0 });
    expect(source(250)?.eventTime).toEqual({ maxOutOfOrdernessMs: 250 });
  });

  it('restored at another parallelism makes exactly the events the checkpoint left', async () => {
    const first = subtasks(params, 3);
    const before: Made[] = [];
    const splits: ConnectorState[] = [];
    for (const [s, { logic, emitter }] of first.entries()) {
      await logic.open();
      // Subtasks stop at different points, as they would at a barrier.
      await logic.produce(100 + 37 * s);
      splits.push(...logic.snapshot(1).splits!);
      await logic.abort();
      before.push(...emitter.made);
    }
    expect(splits.map((s) => s.kind)).toEqual(['source.nexmark', 'source.nexmark', 'source.nexmark']);
    for (const parallelism of [1, 2, 5]) {
      const after: Made[] = [];
      for (const { logic, emitter } of subtasks(params, parallelism, splits)) {
        await logic.open();
        await drain(logic);
        await logic.endInput();
        after.push(...emitter.made);
        // A subtask dealt several streams still makes its events in time order.
        for (let i = 1; i < emitter.made.length; i++)
          expect(emitter.made[i]!.timestamp!).toBeGreaterThanOrEqual(emitter.made[i - 1]!.timestamp!);
      }
      const [whole] = await run(params, 1);
      expect(byPosition([...before, ...after])).toEqual(whole);
    }
  });

  it('makes events without end when it has no count', async () => {
    const [{ logic, emitter }] = subtasks({ seed: 1 }, 1) as [
      { logic: OperatorLogic; emitter: CollectingEmitter },
    ];
    await logic.open();
    for (let i = 0; i < 30; i++) expect(await logic.produce(1000)).toBe(1000);
    expect(emitter.made.at(-1)!.position).toBe(29_999);
    await logic.abort();
  });
});
