// source.redis: a Redis stream read by entry id. The whole stream is one split, {stream, lastId}:
// subtask 0 reads it and any other subtask ends at once (a stream has one order, and reading it
// from several readers would need consumer groups, whose acknowledgements live on the server and
// not in the job's checkpoints). The split's lastId is the id after which reading resumes, so a
// restore goes on exactly after the last entry emitted before the barrier.
// "$" and stopAt "last" are resolved at the first open, to the stream's last id then, and the
// split keeps that id: a restore reads from and up to the same entries as the run it restores.
import { JobError } from '../../graph/jobError.js';
import type { ParamsOf } from '../../graph/schema.js';
import type { SubtaskEnvironment } from '../../runtime/operatorLogic.js';
import type { RecordSource } from '../../runtime/recordSource.js';
import type { Source, SourceReader, SplitEnumerator, SplitSerializer } from '../../runtime/source.js';
import type { KindFactory } from '../kindFactory.js';
import { RedisConnection } from './redisConnection.js';
import { checkRedisSource } from './redisConnectionCheck.js';
import { compareStreamIds, isStreamId, streamIdTime } from './streamIds.js';

const KIND = 'source.redis';
/** Entries one read asks for. */
const BATCH = 1_000;
/**
 * How long a read of an unbounded stream waits on the server for new entries. A barrier waits
 * for the read in flight, so this bounds how late a checkpoint can be taken.
 */
const BLOCK_MS = 100;

export interface RedisSplit {
  readonly stream: string;
  /** Entries after this id are read; "$" until the first open resolves it. */
  readonly lastId: string;
  /** stopAt "last": the last id to read ("last" until the first open resolves it); none: unbounded. */
  readonly stopId?: string | undefined;
  /** startId "$": the stream may not exist yet (every entry a producer adds to it is new). */
  readonly mayBeMissing?: boolean | undefined;
}

const serializer: SplitSerializer<RedisSplit> = {
  toPayload: (split) => ({ ...split }),
  fromPayload: (payload) => payload as RedisSplit,
};

/** Subtask 0 reads the stream, the others nothing; a restore gives it back to subtask 0. */
export function redisEnumerator(params: ParamsOf<'source.redis'>): SplitEnumerator<RedisSplit> {
  return {
    assign(parallelism, restored) {
      const dealt: RedisSplit[][] = Array.from({ length: parallelism }, () => []);
      const startId = params.startId ?? '0';
      dealt[0]!.push(
        ...(restored ?? [
          {
            stream: params.stream,
            lastId: startId,
            stopId: params.stopAt === 'last' ? 'last' : undefined,
            mayBeMissing: startId === '$' ? true : undefined,
          },
        ]),
      );
      return dealt;
    },
  };
}

export function redisSource(params: ParamsOf<'source.redis'>): Source<RedisSplit> {
  return {
    waitsOnWorld: true,
    splitKind: KIND,
    serializer,
    enumerator: redisEnumerator(params),
    createReader: (env) => new RedisStreamReader(env, params),
  };
}

export const sourceRedisFactory: KindFactory = {
  role: 'source',
  createSource: ({ planned }) =>
    redisSource(planned.operator.params as ParamsOf<'source.redis'>) as Source<unknown>,
  testConnection: (params, operatorId) => checkRedisSource(params as ParamsOf<'source.redis'>, operatorId),
};

interface Entry {
  readonly id: string;
  readonly message: Record<string, string>;
}

type ReadReply = { name: string; messages: Entry[] }[] | null;

export class RedisStreamReader implements SourceReader<RedisSplit> {
  private readonly connection: RedisConnection;
  private readonly operatorId: string;
  private readonly skipBad: boolean;
  private split: RedisSplit | undefined;
  private source: RecordSource | undefined;
  /** Entries read but not emitted yet (the emitter blocked). */
  private buffered: Entry[] = [];
  private done = false;

  constructor(
    private readonly env: SubtaskEnvironment,
    params: ParamsOf<'source.redis'>,
  ) {
    this.operatorId = env.operator.id;
    this.skipBad = params.onBadRecord === 'skip';
    this.connection = new RedisConnection(params.url, this.operatorId, params.retryTimeoutMs, env.reportWait);
  }

  async open(splits: readonly RedisSplit[]): Promise<void> {
    const split = splits[0];
    if (split === undefined) {
      this.done = true;
      return;
    }
    const { stream } = split;
    for (const id of [split.lastId, split.stopId]) {
      if (id !== undefined && id !== '$' && id !== 'last' && !isStreamId(id)) {
        throw new JobError(
          `operator "${this.operatorId}": startId "${id}" is not a stream entry id ("0", "$", or "<ms>-<seq>" such as "1700000000000-0")`,
          this.operatorId,
        );
      }
    }
    let lastGenerated: string;
    try {
      lastGenerated = await this.connection.run(`opening stream "${stream}"`, async (client) => {
        const type = await client.type(stream);
        if (type === 'none') {
          if (split.mayBeMissing === true) return '0-0';
          throw new JobError(
            `operator "${this.operatorId}": stream "${stream}" does not exist at ${this.connection.server}`,
            this.operatorId,
          );
        }
        if (type !== 'stream') {
          throw new JobError(
            `operator "${this.operatorId}": key "${stream}" at ${this.connection.server} holds a ${type}, not a stream`,
            this.operatorId,
          );
        }
        const info = (await client.xInfoStream(stream)) as unknown as Record<string, unknown>;
        return String(info['last-generated-id']);
      });
    } catch (error) {
      // A reader whose open failed is not closed by the engine: its connection must not keep the process.
      this.connection.close();
      throw error;
    }
    this.split = {
      ...split,
      lastId: split.lastId === '$' ? lastGenerated : split.lastId,
      stopId: split.stopId === 'last' ? lastGenerated : split.stopId,
    };
    this.source = { kind: 'at', operatorId: this.operatorId, label: `stream "${stream}" entry at ms` };
  }

  snapshotSplits(): readonly RedisSplit[] {
    return this.finished() || this.split === undefined ? [] : [this.split];
  }

  poll(limit: number): number | Promise<number> {
    if (this.buffered.length > 0) return this.emit(limit);
    if (this.done) return -1;
    return this.read(limit).then(() => (this.finished() ? -1 : this.emit(limit)));
  }

  /** Every entry up to the end read and emitted. */
  private finished(): boolean {
    return this.done && this.buffered.length === 0;
  }

  private async read(limit: number): Promise<void> {
    const split = this.split!;
    const bounded = split.stopId !== undefined;
    if (bounded && compareStreamIds(split.lastId, split.stopId!) >= 0) {
      this.done = true;
      return;
    }
    const reply = (await this.connection.run(`reading stream "${split.stream}"`, (client) =>
      client.xRead(
        { key: split.stream, id: split.lastId },
        // A bounded read knows there is more up to stopId: it asks without waiting.
        bounded ? { COUNT: Math.min(limit, BATCH) } : { COUNT: Math.min(limit, BATCH), BLOCK: BLOCK_MS },
      ),
    )) as unknown as ReadReply;
    const entries = reply?.[0]?.messages ?? [];
    if (!bounded) {
      this.buffered = entries;
      return;
    }
    const kept = entries.filter((e) => compareStreamIds(e.id, split.stopId!) <= 0);
    // Nothing after lastId (entries up to stopId were deleted), or past the end: done.
    if (kept.length < entries.length || entries.length === 0) this.done = true;
    this.buffered = kept;
  }

  /** Emits buffered entries, moving lastId past each one, until the limit or the emitter blocks. */
  private emit(limit: number): number {
    const emitter = this.env.emitter;
    const lineage = emitter.lineage;
    let emitted = 0;
    let taken = 0;
    while (taken < this.buffered.length && emitted < limit) {
      const entry = this.buffered[taken++]!;
      this.split = { ...this.split!, lastId: entry.id };
      const record = this.record(entry);
      if (record === SKIPPED) {
        emitter.recordsSkipped++;
        continue;
      }
      lineage.source = this.source!;
      lineage.position = streamIdTime(entry.id);
      emitter.emit(record);
      emitted++;
      if (emitter.blocked) break;
    }
    this.buffered = this.buffered.slice(taken);
    return emitted;
  }

  /** The contract: an entry whose one field is "json" is that JSON value, any other its fields. */
  private record(entry: Entry): unknown {
    const fields = Object.keys(entry.message);
    if (fields.length !== 1 || fields[0] !== 'json') return { ...entry.message };
    try {
      return JSON.parse(entry.message.json!);
    } catch (error) {
      if (this.skipBad) return SKIPPED;
      throw new JobError(
        `operator "${this.operatorId}": stream "${this.split!.stream}" entry ${entry.id}: its "json" field is not valid JSON (${(error as Error).message})`,
        this.operatorId,
      );
    }
  }

  async close(): Promise<void> {
    this.connection.close();
  }
}

const SKIPPED = Symbol('skipped');
