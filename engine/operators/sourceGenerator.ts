// source.generator: records from `generate(i, ctx)`. Subtask s of p makes i = s, s+p, s+2p, ...
// ctx.random() is reseeded from (seed, i) for every i, so record i is the same whatever the
// parallelism, and the whole stream is the same on every run.
// Its splits are streams of indexes (next, stride); a restore deals what was left round-robin.

import { JobError } from '../graph/jobError.js';
import type { ParamsOf } from '../graph/schema.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { recordCopy } from '../runtime/recordCopy.js';
import { describeRecordSource, type RecordSource } from '../runtime/recordSource.js';
import type { Source } from '../runtime/source.js';
import { IndexedReader } from './indexedReader.js';
import { type IndexSplit, indexEnumerator } from './indexStreams.js';
import type { KindFactory } from './kindFactory.js';
import { readTimestamp, timestampWanted } from './recordTimestamp.js';
import { userContext } from './userContext.js';
import { compileSubtaskFunctions } from './userFunctions.js';

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
export type GeneratorSplit = IndexSplit;

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
      enumerator: indexEnumerator,
      createReader: (env) => new GeneratorReader(env, params, generate(env.subtask)),
    };
    return source as Source<unknown>;
  },
};

export class GeneratorReader extends IndexedReader {
  private readonly seed: number;
  private readonly random = seededRandom();
  private readonly ctx: object;
  private readonly source: RecordSource;
  private readonly timestampPath: readonly string[] | undefined;
  // biome-ignore lint/complexity/noBannedTypes: user code is any function
  private readonly generate: Function;

  constructor(
    env: SubtaskEnvironment,
    params: ParamsOf<'source.generator'>,
    // biome-ignore lint/complexity/noBannedTypes: user code is any function
    generate: Function,
  ) {
    super(env, params.count, params.ratePerSec);
    this.generate = generate;
    this.seed = params.seed ?? 0;
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

  protected make(i: number): void | Promise<void> {
    const lineage = this.env.emitter.lineage;
    lineage.source = this.source;
    lineage.position = i;
    this.random.reseed(this.seed, i);
    // A plain call: `this.generate(...)` would give user code this reader (and env) as `this`.
    const generate = this.generate;
    const record = generate(i, this.ctx);
    if (
      record !== null &&
      typeof record === 'object' &&
      typeof (record as { then?: unknown }).then === 'function'
    ) {
      return Promise.resolve(record).then((value) => {
        if (value !== undefined && value !== null) this.send(value);
      });
    }
    if (record !== undefined && record !== null) this.send(record);
  }
}
