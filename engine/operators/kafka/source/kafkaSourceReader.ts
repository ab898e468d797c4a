// One source.kafka subtask: finds the partitions of its share, reads them from their offsets at
// read_committed, and emits each record with its Kafka timestamp (or timestampField) as event
// time. Fetches run ahead of the emitting (one at a time per leader), so a poll mostly emits from
// what is buffered; a poll with nothing to emit returns the pending fetch (which the broker holds
// up to 250 ms when there is nothing new) rather than 0 at once, so an idle source sleeps.
import { JobError } from '../../../graph/jobError.js';
import type { ParamsOf } from '../../../graph/schema.js';
import type { SubtaskEnvironment } from '../../../runtime/operatorLogic.js';
import type { RecordSource } from '../../../runtime/recordSource.js';
import type { SourceReader } from '../../../runtime/source.js';
import type { MaybePromise } from '../../../state/maybePromise.js';
import { readTimestamp, timestampWanted } from '../../recordTimestamp.js';
import { type FetchedRecord, fetchedRecords } from './fetchedRecords.js';
import { type RecordShape, shapeRecord } from './kafkaRecordShape.js';
import { KafkaSourceBroker, partitionName, type TopicPartition } from './kafkaSourceBroker.js';
import {
  isShare,
  type KafkaPartitionSplit,
  type KafkaShare,
  type KafkaSplit,
  partitionOwner,
} from './kafkaSplit.js';

const DEFAULT_DISCOVERY_MS = 5_000;
/** Fetch ahead while fewer records than this wait to be emitted. */
const BUFFER_RECORDS = 50_000;
/** An idle wait when nothing can be fetched (no partitions, or all are at their end). */
const IDLE_MS = 250;

interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** The next offset to emit. */
  next: number;
  /** The next offset to fetch (ahead of `next` while fetched records wait). */
  fetchAt: number;
  readonly end: number | undefined;
  readonly source: RecordSource;
}

interface Chunk {
  readonly state: PartitionState;
  readonly records: FetchedRecord[];
  index: number;
  readonly nextOffset: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class KafkaSourceReader implements SourceReader<KafkaSplit> {
  private readonly operatorId: string;
  private readonly broker: KafkaSourceBroker;
  private readonly shapeOptions: RecordShape;
  private readonly timestampPath: readonly string[] | undefined;
  private readonly pattern: RegExp | undefined;
  private readonly discoveryMs: number;
  private share: KafkaShare = { part: 0, of: 1, fresh: true };
  private readonly partitions = new Map<string, PartitionState>();
  private readonly topicIds = new Map<string, string>();
  private readonly leaders = new Map<string, number>();
  private readonly chunks: Chunk[] = [];
  private buffered = 0;
  private fetching: MaybePromise;
  private discovering: MaybePromise;
  private nextDiscoveryAt = Infinity;
  /** The first open's discovery: a fresh share's partitions start at startingOffsets then. */
  private opening = true;
  private failure: unknown;
  private closed = false;
  /** Offsets of checkpoints not yet complete, for the group commit (groupId only). */
  private readonly pendingCommits = new Map<number, { topic: string; partition: number; offset: number }[]>();

  constructor(
    private readonly env: SubtaskEnvironment,
    private readonly params: ParamsOf<'source.kafka'>,
  ) {
    this.operatorId = env.operator.id;
    this.broker = new KafkaSourceBroker({
      operatorId: this.operatorId,
      bootstrapServers: params.bootstrapServers,
      retryTimeoutMs: params.retryTimeoutMs,
      reportWait: env.reportWait,
    });
    this.shapeOptions = {
      format: params.format ?? 'json',
      keyFormat: params.keyFormat ?? 'string',
      includeMetadata: params.includeMetadata === true,
    };
    this.timestampPath = params.timestampField?.split('.');
    this.pattern = params.topicPattern === undefined ? undefined : new RegExp(`^(?:${params.topicPattern})$`);
    // A bounded read ends at the partitions it found first: Flink's bounded mode finds no more.
    this.discoveryMs =
      params.stopAt !== undefined ? 0 : (params.partitionDiscoveryMs ?? DEFAULT_DISCOVERY_MS);
  }

  private get bounded(): boolean {
    return this.params.stopAt !== undefined;
  }

  async open(splits: readonly KafkaSplit[]): Promise<void> {
    for (const split of splits) {
      if (isShare(split)) this.share = split;
      else this.addPartition(split);
    }
    try {
      // A restored bounded read has every partition it will read in its splits.
      await this.discover(!(this.bounded && !this.share.fresh));
    } catch (error) {
      // The job fails here: its open sockets must not keep the process alive.
      await this.close();
      throw error;
    }
    this.opening = false;
    if (this.discoveryMs > 0) this.nextDiscoveryAt = Date.now() + this.discoveryMs;
  }

  private addPartition(split: KafkaPartitionSplit): void {
    this.partitions.set(partitionName(split.topic, split.partition), {
      topic: split.topic,
      partition: split.partition,
      next: split.offset,
      fetchAt: split.offset,
      end: split.end,
      source: {
        kind: 'at',
        operatorId: this.operatorId,
        label: `Kafka topic "${split.topic}" partition ${split.partition} offset`,
      },
    });
  }

  /** The topics to read now: the named ones, or those the pattern matches. */
  private async topicsNow(): Promise<string[]> {
    const named = this.params.topics ?? (this.params.topic !== undefined ? [this.params.topic] : []);
    if (this.pattern === undefined) return [...named];
    const pattern = this.pattern;
    return (await this.broker.listTopics()).filter((topic) => pattern.test(topic)).sort();
  }

  /**
   * Refreshes topic ids and leaders; with `addNew`, adds the partitions of this share not read
   * yet: at a fresh start's first open from startingOffsets, later from the earliest offset.
   */
  private async discover(addNew: boolean): Promise<void> {
    const first = this.opening && this.share.fresh;
    const topics = new Set(await this.topicsNow());
    for (const state of this.partitions.values()) topics.add(state.topic);
    const layouts = await this.broker.layout([...topics].sort());
    const found: TopicPartition[] = [];
    for (const [topic, layout] of layouts) {
      this.topicIds.set(topic, layout.id);
      layout.leaders.forEach((leader, partition) => {
        this.leaders.set(partitionName(topic, partition), leader);
        if (!addNew || partitionOwner(topic, partition, this.share.of) !== this.share.part) return;
        if (!this.partitions.has(partitionName(topic, partition))) found.push({ topic, partition });
      });
    }
    if (found.length === 0 || this.closed) return;
    const starts = first ? await this.startingOffsets(found) : await this.broker.earliest(found);
    const ends = this.bounded ? await this.broker.latest(found) : undefined;
    for (const { topic, partition } of found) {
      const name = partitionName(topic, partition);
      const offset = starts.get(name) ?? 0;
      // A partition found in the same call was added meanwhile by nobody: calls do not overlap.
      if (this.partitions.has(name)) continue;
      this.addPartition({ topic, partition, offset, end: ends?.get(name) });
    }
  }

  private async startingOffsets(parts: readonly TopicPartition[]): Promise<Map<string, number>> {
    const starting = this.params.startingOffsets ?? 'earliest';
    if (starting === 'earliest') return this.broker.earliest(parts);
    if (starting === 'latest') return this.broker.latest(parts);
    if (starting === 'committed') {
      const committed = await this.broker.committed(this.params.groupId!, parts);
      const missing = parts.filter((p) => !committed.has(partitionName(p.topic, p.partition)));
      for (const [name, offset] of await this.broker.earliest(missing)) committed.set(name, offset);
      return committed;
    }
    return this.broker.atTimestamp(parts, starting.timestamp);
  }

  private done(state: PartitionState): boolean {
    return state.end !== undefined && state.next >= state.end;
  }

  private allDone(): boolean {
    if (!this.bounded || this.chunks.length > 0) return false;
    for (const state of this.partitions.values()) if (!this.done(state)) return false;
    return true;
  }

  poll(limit: number): number | Promise<number> {
    if (this.failure !== undefined) throw this.failure;
    this.maybeDiscover();
    const emitted = this.drain(limit);
    if (this.allDone()) return emitted > 0 ? emitted : -1;
    this.maybeFetch();
    if (emitted > 0 || this.env.emitter.blocked) return emitted;
    const waiting = this.fetching ?? this.discovering ?? sleep(IDLE_MS);
    return waiting.then(() => {
      if (this.failure !== undefined) throw this.failure;
      const count = this.drain(limit);
      return count === 0 && this.allDone() ? -1 : count;
    });
  }

  private maybeDiscover(): void {
    if (this.discovering !== undefined || Date.now() < this.nextDiscoveryAt) return;
    this.discovering = this.discover(true)
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.discovering = undefined;
        this.nextDiscoveryAt = Date.now() + this.discoveryMs;
      });
  }

  /** Starts a fetch of every partition with more to read, by leader, unless one is running. */
  private maybeFetch(): void {
    if (this.fetching !== undefined || this.buffered >= BUFFER_RECORDS || this.closed) return;
    const byLeader = new Map<number, { topic: string; partition: number; offset: number }[]>();
    for (const [name, state] of this.partitions) {
      if (state.end !== undefined && state.fetchAt >= state.end) continue;
      const leader = this.leaders.get(name);
      if (leader === undefined || !this.topicIds.has(state.topic)) continue;
      const list = byLeader.get(leader) ?? [];
      list.push({ topic: state.topic, partition: state.partition, offset: state.fetchAt });
      byLeader.set(leader, list);
    }
    if (byLeader.size === 0) return;
    this.fetching = Promise.all(
      [...byLeader].map(async ([leader, parts]) => {
        const fetched = await this.broker.fetch({ leader, parts }, this.topicIds);
        if (this.closed) return;
        for (const { topic, partition, response } of fetched) {
          const state = this.partitions.get(partitionName(topic, partition));
          if (state === undefined) continue;
          const chunk = fetchedRecords(response, state.fetchAt);
          let records = chunk.records;
          if (
            state.end !== undefined &&
            records.length > 0 &&
            records[records.length - 1]!.offset >= state.end
          ) {
            const end = state.end;
            records = records.filter((r) => r.offset < end);
          }
          const nextOffset =
            state.end === undefined ? chunk.nextOffset : Math.min(chunk.nextOffset, state.end);
          if (nextOffset <= state.fetchAt) continue;
          state.fetchAt = nextOffset;
          this.chunks.push({ state, records, index: 0, nextOffset });
          this.buffered += records.length;
        }
      }),
    )
      .then(() => undefined)
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.fetching = undefined;
      });
  }

  /** Emits buffered records, up to `limit` or until the emitter is blocked. */
  private drain(limit: number): number {
    const emitter = this.env.emitter;
    const lineage = emitter.lineage;
    let emitted = 0;
    while (emitted < limit && this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const { state, records } = chunk;
      while (emitted < limit && chunk.index < records.length) {
        const fetched = records[chunk.index++]!;
        this.buffered--;
        state.next = fetched.offset + 1;
        const shaped = shapeRecord(fetched, state.topic, state.partition, this.shapeOptions);
        if (!shaped.ok) {
          if (this.params.onBadRecord === 'skip') {
            emitter.recordsSkipped++;
            continue;
          }
          throw this.badRecord(state, fetched.offset, shaped.why);
        }
        let timestamp = fetched.timestamp;
        if (this.timestampPath !== undefined) {
          const field = readTimestamp(shaped.record, this.timestampPath);
          if (field === undefined) {
            if (this.params.onBadTimestamp === 'skip') {
              emitter.recordsSkipped++;
              continue;
            }
            throw this.badRecord(state, fetched.offset, `it has ${timestampWanted(this.timestampPath)}`);
          }
          timestamp = field;
        }
        lineage.source = state.source;
        lineage.position = fetched.offset;
        lineage.timestamp = timestamp;
        emitter.emit(shaped.record);
        emitted++;
        if (emitter.blocked) break;
      }
      if (chunk.index >= records.length) {
        // Markers and aborted batches after the last record are read too.
        state.next = Math.max(state.next, chunk.nextOffset);
        this.chunks.shift();
      }
      if (emitter.blocked) break;
    }
    return emitted;
  }

  private badRecord(state: PartitionState, offset: number, why: string): JobError {
    return new JobError(
      `operator "${this.operatorId}": Kafka topic "${state.topic}" partition ${state.partition} offset ${offset} cannot be read: ${why}`,
      this.operatorId,
    );
  }

  snapshotSplits(checkpointId: number): KafkaSplit[] {
    const splits: KafkaSplit[] = [this.share];
    const offsets: { topic: string; partition: number; offset: number }[] = [];
    for (const state of this.partitions.values()) {
      splits.push({ topic: state.topic, partition: state.partition, offset: state.next, end: state.end });
      offsets.push({ topic: state.topic, partition: state.partition, offset: state.next });
    }
    if (this.params.groupId !== undefined) this.pendingCommits.set(checkpointId, offsets);
    return splits;
  }

  /** Flink's commit on checkpoint: the group learns the offsets only once the checkpoint holds them. */
  checkpointComplete(checkpointId: number): void {
    const offsets = this.pendingCommits.get(checkpointId);
    for (const id of this.pendingCommits.keys()) if (id <= checkpointId) this.pendingCommits.delete(id);
    if (offsets === undefined || offsets.length === 0 || this.params.groupId === undefined || this.closed)
      return;
    // As in Flink, a failed commit fails nothing: the job resumes from its checkpoints, and the
    // next checkpoint's commit carries newer offsets.
    this.broker.commit(this.params.groupId, offsets).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([this.fetching, this.discovering]);
    await this.broker.close();
  }
}
