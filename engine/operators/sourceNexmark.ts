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
import type { Source } from '../runtime/source.js';
import { IndexedReader } from './indexedReader.js';
import { type IndexSplit, indexEnumerator } from './indexStreams.js';
import type { KindFactory } from './kindFactory.js';
import { EventRandom } from './nexmark/eventRandom.js';
import { type NexmarkConfig, nexmarkConfig } from './nexmark/nexmarkConfig.js';
import { nexmarkEvent } from './nexmark/nexmarkEvent.js';

export type NexmarkSplit = IndexSplit;

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
      enumerator: indexEnumerator,
      createReader: (env) => new NexmarkReader(env, config, params.count, params.ratePerSec),
    };
    return source as Source<unknown>;
  },
};

export class NexmarkReader extends IndexedReader {
  private readonly random = new EventRandom();
  private readonly source: RecordSource;

  constructor(
    env: SubtaskEnvironment,
    private readonly config: NexmarkConfig,
    count: number | undefined,
    ratePerSec: number | undefined,
  ) {
    super(env, count, ratePerSec);
    this.source = { kind: 'at', operatorId: env.operator.id, label: `nexmark "${env.operator.id}" event` };
  }

  protected make(n: number): undefined {
    const event = nexmarkEvent(this.config, n, this.random);
    const emitter = this.env.emitter;
    const lineage = emitter.lineage;
    lineage.source = this.source;
    lineage.position = n;
    lineage.timestamp = event.dateTime;
    emitter.emit(event);
    return undefined;
  }
}
