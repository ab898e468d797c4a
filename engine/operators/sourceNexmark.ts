// source.nexmark: event n of the NEXMark stream (nexmark/nexmarkEvent.ts) for n = 0, 1, 2, ...
// (up to count). Subtask s of p makes n = s, s+p, s+2p, ...; each event is reseeded from (seed, n),
// so event n is the same whatever the parallelism. Its splits are streams of event numbers
// (next, stride), as source.generator's: a restore deals what was left round-robin.
// A subtask makes its events in event-number order (the lowest next number of its streams
// first), and event times never go down with the number: each subtask's records come in
// timestamp order (equal times are common: several events share a millisecond above 1000/s).
import type { ParamsOf } from '../graph/schema.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import type { RecordSource } from '../runtime/recordSource.js';
import type { Source, SourceReader } from '../runtime/source.js';
import type { KindFactory } from './kindFactory.js';
import { EventRandom } from './nexmark/eventRandom.js';
import { type NexmarkConfig, nexmarkConfig } from './nexmark/nexmarkConfig.js';
import { nexmarkEvent } from './nexmark/nexmarkEvent.js';
import { type GeneratorSplit, generatorEnumerator } from './sourceGenerator.js';

/** Events per slice when rate-limited: fixed, so slice boundaries do not depend on the clock. */
const RATE_STEPS_PER_SECOND = 100;

export type NexmarkSplit = GeneratorSplit;

export function nexmarkConfigOf(params: ParamsOf<'source.nexmark'>): NexmarkConfig {
  return nexmarkConfig({ ...params, eventsPerSec: params.eventsPerSec ?? params.ratePerSec });
}

export const sourceNexmarkFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned }) => {
    const params = planned.operator.params as ParamsOf<'source.nexmark'>;
    const config = nexmarkConfigOf(params);
    const source: Source<NexmarkSplit> = {
      splitKind: 'source.nexmark',
      eventTime: { maxOutOfOrdernessMs: params.maxOutOfOrdernessMs ?? 0 },
      serializer: {
        toPayload: (split) => ({ next: split.next, stride: split.stride }),
        fromPayload: (payload) => payload as NexmarkSplit,
      },
      enumerator: generatorEnumerator,
      createReader: (env) => new NexmarkReader(env, config, params.count, params.ratePerSec),
    };
    return source as Source<unknown>;
  },
};

export class NexmarkReader implements SourceReader<NexmarkSplit> {
  private readonly streams: { next: number; stride: number }[] = [];
  private readonly count: number;
  private readonly perSlice: number;
  private readonly intervalMs: number;
  /** 1000 / the subtask's rate: how far each event moves the next due time. */
  private readonly msPerEvent: number;
  private nextDue = 0;
  private readonly random = new EventRandom();
  private readonly source: RecordSource;

  constructor(
    private readonly env: SubtaskEnvironment,
    private readonly config: NexmarkConfig,
    count: number | undefined,
    ratePerSec: number | undefined,
  ) {
    this.count = count ?? Number.POSITIVE_INFINITY;
    const rate = ratePerSec === undefined ? undefined : ratePerSec / env.parallelism;
    this.perSlice =
      rate === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(rate / RATE_STEPS_PER_SECOND));
    this.intervalMs = rate === undefined ? 0 : (1000 * this.perSlice) / rate;
    this.msPerEvent = rate === undefined ? 0 : 1000 / rate;
    this.source = { kind: 'at', operatorId: env.operator.id, label: `nexmark "${env.operator.id}" event` };
  }

  /** The stream with the lowest next number: events in number order, so in time order. */
  private nextStream(): { next: number; stride: number } | undefined {
    let best: { next: number; stride: number } | undefined;
    for (const stream of this.streams)
      if (stream.next < this.count && (best === undefined || stream.next < best.next)) best = stream;
    return best;
  }

  async open(splits: readonly NexmarkSplit[]): Promise<void> {
    this.streams.push(...splits.map((s) => ({ next: s.next, stride: s.stride })));
  }

  snapshotSplits(): NexmarkSplit[] {
    return this.streams.filter((s) => s.next < this.count).map((s) => ({ next: s.next, stride: s.stride }));
  }

  async close(): Promise<void> {}

  progress(): { streams: { next: number; stride: number }[]; nextDue: number } {
    return { streams: this.streams.map((s) => ({ ...s })), nextDue: this.nextDue };
  }

  restoreProgress(progress: unknown): void {
    const p = progress as ReturnType<NexmarkReader['progress']>;
    this.streams.splice(0, this.streams.length, ...p.streams.map((s) => ({ ...s })));
    this.nextDue = p.nextDue;
  }

  poll(limit: number): number | Promise<number> {
    if (this.nextStream() === undefined) return -1;
    if (this.intervalMs > 0) {
      const wait = this.nextDue - performance.now();
      if (wait > 0) return new Promise((resolve) => setTimeout(resolve, wait)).then(() => this.poll(limit));
      // A slice cut short by the scheduler's budget is due again after what it made, not more.
      this.nextDue = Math.max(this.nextDue, performance.now() - this.intervalMs);
    }
    const emitter = this.env.emitter;
    const lineage = emitter.lineage;
    const max = Math.min(limit, this.perSlice);
    let emitted = 0;
    for (let stream = this.nextStream(); emitted < max && stream !== undefined; stream = this.nextStream()) {
      const n = stream.next;
      stream.next += stream.stride;
      const event = nexmarkEvent(this.config, n, this.random);
      lineage.source = this.source;
      lineage.position = n;
      lineage.timestamp = event.dateTime;
      emitter.emit(event);
      emitted++;
      if (emitter.blocked) break;
    }
    this.nextDue += emitted * this.msPerEvent;
    return emitted;
  }
}
