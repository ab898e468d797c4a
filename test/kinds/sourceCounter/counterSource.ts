// source.counter, the Node side: the numbers 0 .. count - 1 cut into ranges [from, to). A fresh
// start gives each subtask one range; a restore deals what was left of the ranges round-robin to
// however many subtasks there are now. Each poll waits pauseMs on a real timer first, so the
// source waits on the world (as a broker would) and a run lasts long enough to be killed.
import type { KindFactory } from '../../../engine/operators/kindFactory.js';
import type { SubtaskEnvironment } from '../../../engine/runtime/operatorLogic.js';
import type { RecordSource } from '../../../engine/runtime/recordSource.js';
import type { Source, SourceReader, SplitEnumerator } from '../../../engine/runtime/source.js';
import { type CounterParams, counterParams } from './descriptor.js';

const SPLIT_KIND = 'source.counter';
const DEFAULT_PER_POLL = 100;

export interface CounterSplit {
  readonly from: number;
  readonly to: number;
}

export function counterEnumerator(count: number): SplitEnumerator<CounterSplit> {
  return {
    assign(parallelism, restored) {
      if (restored === undefined) {
        return Array.from({ length: parallelism }, (_, s) => [
          { from: Math.floor((count * s) / parallelism), to: Math.floor((count * (s + 1)) / parallelism) },
        ]);
      }
      const dealt: CounterSplit[][] = Array.from({ length: parallelism }, () => []);
      restored.forEach((split, i) => {
        dealt[i % parallelism]!.push(split);
      });
      return dealt;
    },
  };
}

function asSplit(payload: unknown): CounterSplit {
  const { from, to } = (payload ?? {}) as { from?: unknown; to?: unknown };
  if (!Number.isInteger(from) || !Number.isInteger(to)) {
    throw new Error(
      `a source.counter split must be {from, to} (whole numbers), not ${JSON.stringify(payload)}`,
    );
  }
  return { from: from as number, to: to as number };
}

export const sourceCounterFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned }) => {
    // Params are typed for the built-in kinds only; this kind reads its own through its schema.
    const params = counterParams.parse(planned.operator.params);
    const source: Source<CounterSplit> = {
      waitsOnWorld: true,
      splitKind: SPLIT_KIND,
      serializer: { toPayload: (split) => ({ from: split.from, to: split.to }), fromPayload: asSplit },
      enumerator: counterEnumerator(params.count),
      createReader: (env) => new CounterReader(env, params),
    };
    return source as Source<unknown>;
  },
};

class CounterReader implements SourceReader<CounterSplit> {
  /** What is left to read, in order: the first range's `from` moves as records go out. */
  private ranges: { from: number; to: number }[] = [];
  private readonly perPoll: number;
  private readonly pauseMs: number;
  private readonly origin: RecordSource;

  constructor(
    private readonly env: SubtaskEnvironment,
    params: CounterParams,
  ) {
    this.perPoll = params.perPoll ?? DEFAULT_PER_POLL;
    this.pauseMs = params.pauseMs ?? 0;
    // An error on record n then names it `counter "src" n 42`.
    this.origin = { kind: 'at', operatorId: env.operator.id, label: `counter "${env.operator.id}" n` };
  }

  async open(splits: readonly CounterSplit[]): Promise<void> {
    this.ranges = splits.filter((s) => s.from < s.to).map((s) => ({ from: s.from, to: s.to }));
  }

  poll(limit: number): number | Promise<number> {
    if (this.ranges.length === 0) return -1;
    if (this.pauseMs === 0) return this.emit(limit);
    return new Promise<void>((resolve) => setTimeout(resolve, this.pauseMs)).then(() => this.emit(limit));
  }

  private emit(limit: number): number {
    const emitter = this.env.emitter;
    const max = Math.min(limit, this.perPoll);
    let emitted = 0;
    while (emitted < max && this.ranges.length > 0) {
      const range = this.ranges[0]!;
      const n = range.from++;
      if (range.from >= range.to) this.ranges.shift();
      emitter.lineage.source = this.origin;
      emitter.lineage.position = n;
      emitter.emit({ n });
      emitted++;
      if (emitter.blocked) break;
    }
    return emitted;
  }

  snapshotSplits(): readonly CounterSplit[] {
    return this.ranges.map((r) => ({ from: r.from, to: r.to }));
  }

  async close(): Promise<void> {
    this.ranges = [];
  }
}
