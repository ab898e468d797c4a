// source.generator: records from `generate(i, ctx)`. Subtask s of p makes i = s, s+p, s+2p, ...
// ctx.random() is reseeded from (seed, i) for every i, so record i is the same whatever the
// parallelism, and the whole stream is the same on every run.
// Its splits are streams of indexes (next, stride); a restore deals what was left round-robin.

import { JobError } from '../graph/jobError.js';
import type { ParamsOf } from '../graph/schema.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import { describeRecordSource, type RecordSource } from '../runtime/recordSource.js';
import type { Source, SourceReader, SplitEnumerator } from '../runtime/source.js';
import type { KindFactory } from './kindFactory.js';
import { readTimestamp, timestampWanted } from './recordTimestamp.js';
import { userContext } from './userContext.js';
import { compileSubtaskFunctions } from './userFunctions.js';

/** Records per slice when rate-limited: fixed, so slice boundaries do not depend on the clock. */
const RATE_STEPS_PER_SECOND = 100;

/** mulberry32 step with the state mixed from seed and index (splitmix-style). */
function seededRandom(): { reseed(seed: number, index: number): void; next(): number } {
  let state = 0;
  return {
    reseed(seed, index) {
      let h =
        Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index, 0xc2b2ae35) ^ Math.floor(index / 2 ** 32);
      h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
      state = h ^ (h >>> 15);
    },
    next() {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Indexes i = next, next + stride, ... */
export interface GeneratorSplit {
  readonly next: number;
  readonly stride: number;
}

export const generatorEnumerator: SplitEnumerator<GeneratorSplit> = {
  assign(parallelism, restored) {
    if (restored === undefined)
      return Array.from({ length: parallelism }, (_, s) => [{ next: s, stride: parallelism }]);
    const dealt: GeneratorSplit[][] = Array.from({ length: parallelism }, () => []);
    restored.forEach((split, i) => {
      dealt[i % parallelism]!.push(split);
    });
    return dealt;
  },
};

export const sourceGeneratorFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned }) => {
    const params = planned.operator.params as ParamsOf<'source.generator'>;
    const generate = compileSubtaskFunctions(planned.operator, planned.parallelism);
    const source: Source<GeneratorSplit> = {
      splitKind: 'source.generator',
      eventTime:
        params.timestampField === undefined
          ? undefined
          : { maxOutOfOrdernessMs: params.maxOutOfOrdernessMs ?? 0, idleTimeoutMs: params.idleTimeoutMs },
      serializer: {
        toPayload: (split) => ({ next: split.next, stride: split.stride }),
        fromPayload: (payload) => payload as GeneratorSplit,
      },
      enumerator: generatorEnumerator,
      createReader: (env) => new GeneratorReader(env, params, generate(env.subtask)),
    };
    return source as Source<unknown>;
  },
};

export class GeneratorReader implements SourceReader<GeneratorSplit> {
  /** Streams of indexes i = next, next + stride, ...; after a restore a subtask may have several. */
  private readonly streams: { next: number; stride: number }[] = [];
  private readonly count: number;
  private readonly seed: number;
  private readonly perSlice: number;
  private readonly intervalMs: number;
  /** 1000 / the subtask's rate: how far each record moves the next due time. */
  private readonly msPerRecord: number;
  private nextDue = 0;
  private readonly random = seededRandom();
  private readonly ctx: object;
  private readonly source: RecordSource;
  private readonly timestampPath: readonly string[] | undefined;
  // biome-ignore lint/complexity/noBannedTypes: user code is any function
  private readonly generate: Function;

  constructor(
    private readonly env: SubtaskEnvironment,
    params: ParamsOf<'source.generator'>,
    // biome-ignore lint/complexity/noBannedTypes: user code is any function
    generate: Function,
  ) {
    this.generate = generate;
    this.count = params.count ?? Number.POSITIVE_INFINITY;
    this.seed = params.seed ?? 0;
    const rate = params.ratePerSec === undefined ? undefined : params.ratePerSec / env.parallelism;
    this.perSlice =
      rate === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(rate / RATE_STEPS_PER_SECOND));
    this.intervalMs = rate === undefined ? 0 : (1000 * this.perSlice) / rate;
    this.msPerRecord = rate === undefined ? 0 : 1000 / rate;
    this.ctx = userContext(env, { random: () => this.random.next() });
    const id = env.operator.id;
    this.source = { kind: 'generator', operatorId: id };
    this.timestampPath = params.timestampField?.split('.');
  }

  /** Emits a record generate made, with its event time where the source has a timestampField. */
  private send(record: unknown): void {
    const copy = recordCopy(record, this.returned);
    const path = this.timestampPath;
    const emitter = this.env.emitter;
    if (path !== undefined) {
      const timestamp = readTimestamp(copy, path);
      if (timestamp === undefined) {
        throw new JobError(
          `${describeRecordSource(this.source, emitter.lineage.position)} has ${timestampWanted(path)}`,
        );
      }
      emitter.lineage.timestamp = timestamp;
    }
    emitter.emit(copy);
  }

  /** Words a returned record that JSON cannot hold (see recordCopy); lineage.position is its i. */
  private readonly returned = () =>
    `the record generate returned for i = ${this.env.emitter.lineage.position}`;

  /** The stream with the lowest next index, so records come in index order whatever the split. */
  private nextStream(): { next: number; stride: number } | undefined {
    let best: { next: number; stride: number } | undefined;
    for (const stream of this.streams)
      if (stream.next < this.count && (best === undefined || stream.next < best.next)) best = stream;
    return best;
  }

  async open(splits: readonly GeneratorSplit[]): Promise<void> {
    this.streams.push(...splits.map((s) => ({ next: s.next, stride: s.stride })));
  }

  snapshotSplits(): GeneratorSplit[] {
    return this.streams.filter((s) => s.next < this.count).map((s) => ({ next: s.next, stride: s.stride }));
  }

  async close(): Promise<void> {}

  progress(): { streams: { next: number; stride: number }[]; nextDue: number } {
    return { streams: this.streams.map((s) => ({ ...s })), nextDue: this.nextDue };
  }

  restoreProgress(progress: unknown): void {
    const p = progress as ReturnType<GeneratorReader['progress']>;
    this.streams.splice(0, this.streams.length, ...p.streams.map((s) => ({ ...s })));
    this.nextDue = p.nextDue;
  }

  poll(limit: number): number | Promise<number> {
    if (this.nextStream() === undefined) return -1;
    if (this.intervalMs > 0) {
      const wait = this.nextDue - performance.now();
      if (wait > 0) return new Promise((resolve) => setTimeout(resolve, wait)).then(() => this.poll(limit));
      // Due again after the time the records of this slice take at the rate (a slice may be
      // cut short by the scheduler's budget, so count what it made, not what it could have).
      this.nextDue = Math.max(this.nextDue, performance.now() - this.intervalMs);
    }
    const emitter = this.env.emitter;
    const lineage = emitter.lineage;
    const max = Math.min(limit, this.perSlice);
    let emitted = 0;
    for (let stream = this.nextStream(); emitted < max && stream !== undefined; stream = this.nextStream()) {
      const i = stream.next;
      stream.next += stream.stride;
      lineage.source = this.source;
      lineage.position = i;
      this.random.reseed(this.seed, i);
      const record = this.generate(i, this.ctx);
      if (
        record !== null &&
        typeof record === 'object' &&
        typeof (record as { then?: unknown }).then === 'function'
      ) {
        return Promise.resolve(record).then((value) => {
          if (value !== undefined && value !== null) this.send(value);
          this.nextDue += (emitted + 1) * this.msPerRecord;
          return emitted + 1;
        });
      }
      if (record !== undefined && record !== null) this.send(record);
      emitted++;
      if (emitter.blocked) break;
    }
    this.nextDue += emitted * this.msPerRecord;
    return emitted;
  }
}
