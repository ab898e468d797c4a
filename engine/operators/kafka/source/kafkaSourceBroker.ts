// What source.kafka asks its brokers, each call through ServerRetry (a broker away is waited for,
// with the status saying so, until retryTimeoutMs): the topics' partitions and leaders, offsets
// (earliest, latest, by timestamp, a group's committed ones), fetches at read_committed, and the
// group offsets it commits after a checkpoint. The consumer is used only for its fetch: it never
// joins its group (partitions are dealt by the enumerator, not by group rebalancing), and offsets
// are committed as a consumer outside the group does (Admin's OffsetCommit, generation -1).
import { Admin, Consumer, FetchIsolationLevels } from '@platformatic/kafka';
import { JobError } from '../../../graph/jobError.js';
import { ServerRetry } from '../../connectors/serverRetry.js';
import { kafkaClientOptions, kafkaServerName } from '../kafkaClientOptions.js';
import {
  describeKafkaError,
  isTransientKafkaError,
  missingTopicIn,
  missingTopicMessage,
} from '../kafkaErrors.js';

/** A topic as the metadata gives it: its id (fetches name topics by id) and partitions' leaders. */
export interface TopicLayout {
  readonly id: string;
  readonly leaders: readonly number[];
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** What one fetch asks of a leader: partitions with the offset to read from. */
export interface FetchRequest {
  readonly leader: number;
  readonly parts: readonly { readonly topic: string; readonly partition: number; readonly offset: number }[];
}

/** A fetch's answer, as the client types it (its type is not exported by name). */
type FetchResponse = Awaited<ReturnType<Consumer['fetch']>>;
export type FetchResponsePartition = FetchResponse['responses'][number]['partitions'][number];

export interface FetchedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly response: FetchResponsePartition;
}

const EARLIEST = -2n;
const LATEST = -1n;
const MAX_WAIT_MS = 250;
const PARTITION_MAX_BYTES = 4 << 20;
const FETCH_MAX_BYTES = 32 << 20;

export interface BrokerTarget {
  readonly operatorId: string;
  readonly bootstrapServers: string;
  readonly retryTimeoutMs: number | undefined;
  readonly reportWait?: ((message: string | undefined) => void) | undefined;
}

export class KafkaSourceBroker {
  private readonly admin: Admin;
  private readonly consumer: Consumer;
  private readonly retry: ServerRetry;
  readonly server: string;

  constructor(private readonly target: BrokerTarget) {
    const options = kafkaClientOptions(`pipewright-${target.operatorId}`, target.bootstrapServers);
    this.admin = new Admin(options);
    // A group id is required by the client; this consumer never joins it.
    this.consumer = new Consumer({ ...options, groupId: `pipewright-${target.operatorId}` });
    this.server = kafkaServerName(target.bootstrapServers);
    this.retry = new ServerRetry({
      operatorId: target.operatorId,
      server: this.server,
      timeoutMs: target.retryTimeoutMs,
      reportWait: target.reportWait,
      isTransient: isTransientKafkaError,
    });
  }

  /** `call` with retries; an error waiting cannot mend becomes one line naming the operator. */
  private async call<T>(action: string, call: () => Promise<T>): Promise<T> {
    try {
      return await this.retry.run(action, call);
    } catch (error) {
      if (error instanceof JobError) throw error;
      const topic = missingTopicIn(error);
      if (topic !== undefined && topic !== '') {
        throw new JobError(
          missingTopicMessage(this.target.operatorId, topic, this.target.bootstrapServers),
          this.target.operatorId,
        );
      }
      throw new JobError(
        `operator "${this.target.operatorId}": ${this.server} failed while ${action}: ${describeKafkaError(error)}`,
        this.target.operatorId,
      );
    }
  }

  /** Every topic on the cluster (internal ones left out). */
  listTopics(): Promise<string[]> {
    return this.call('listing topics', () => this.admin.listTopics());
  }

  /** The layout of each topic; a missing one fails naming it. */
  async layout(topics: readonly string[]): Promise<Map<string, TopicLayout>> {
    const layouts = new Map<string, TopicLayout>();
    if (topics.length === 0) return layouts;
    const metadata = await this.call(`reading the partitions of ${quoteList(topics)}`, () =>
      this.admin.metadata({ topics: [...topics], forceUpdate: true }),
    );
    for (const topic of topics) {
      const found = metadata.topics.get(topic);
      if (found === undefined) {
        throw new JobError(
          missingTopicMessage(this.target.operatorId, topic, this.target.bootstrapServers),
          this.target.operatorId,
        );
      }
      layouts.set(topic, { id: found.id, leaders: found.partitions.map((p) => p.leader) });
    }
    return layouts;
  }

  /** Offsets at `timestamp` (EARLIEST, LATEST, or the first record at or after ms). */
  private async listOffsets(
    parts: readonly TopicPartition[],
    timestamp: bigint,
  ): Promise<Map<string, number>> {
    const offsets = new Map<string, number>();
    if (parts.length === 0) return offsets;
    const what = timestamp === EARLIEST ? 'earliest' : timestamp === LATEST ? 'latest' : 'timestamp';
    const listed = await this.call(`reading the ${what} offsets`, () =>
      this.admin.listOffsets({
        topics: byTopic(parts).map(([name, partitions]) => ({
          name,
          partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })),
        })),
        isolationLevel: FetchIsolationLevels.READ_COMMITTED,
      }),
    );
    for (const topic of listed) {
      for (const p of topic.partitions)
        offsets.set(partitionName(topic.name, p.partitionIndex), Number(p.offset));
    }
    return offsets;
  }

  earliest(parts: readonly TopicPartition[]): Promise<Map<string, number>> {
    return this.listOffsets(parts, EARLIEST);
  }

  /** The last stable offset: where read_committed reading ends now. */
  latest(parts: readonly TopicPartition[]): Promise<Map<string, number>> {
    return this.listOffsets(parts, LATEST);
  }

  /** The first offset whose record time is at or after `ms`; the latest where there is none. */
  async atTimestamp(parts: readonly TopicPartition[], ms: number): Promise<Map<string, number>> {
    const offsets = await this.listOffsets(parts, BigInt(ms));
    const none = parts.filter((p) => (offsets.get(partitionName(p.topic, p.partition)) ?? -1) < 0);
    for (const [name, offset] of await this.latest(none)) offsets.set(name, offset);
    return offsets;
  }

  /** The group's committed offsets; partitions without one are left out. */
  async committed(groupId: string, parts: readonly TopicPartition[]): Promise<Map<string, number>> {
    const offsets = new Map<string, number>();
    if (parts.length === 0) return offsets;
    const groups = await this.call(`reading the committed offsets of group "${groupId}"`, () =>
      this.admin.listConsumerGroupOffsets({
        groups: [
          {
            groupId,
            topics: byTopic(parts).map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
          },
        ],
      }),
    );
    for (const group of groups) {
      for (const topic of group.topics) {
        for (const p of topic.partitions) {
          if (p.committedOffset >= 0n)
            offsets.set(partitionName(topic.name, p.partitionIndex), Number(p.committedOffset));
        }
      }
    }
    return offsets;
  }

  /** One fetch from a leader, read_committed; waits up to MAX_WAIT_MS when there is nothing. */
  async fetch(request: FetchRequest, topicIds: ReadonlyMap<string, string>): Promise<FetchedPartition[]> {
    const topics = byTopicWithOffsets(request.parts).map(([topic, partitions]) => ({
      topicId: topicIds.get(topic)!,
      partitions: partitions.map(({ partition, offset }) => ({
        partition,
        currentLeaderEpoch: -1,
        fetchOffset: BigInt(offset),
        lastFetchedEpoch: -1,
        partitionMaxBytes: PARTITION_MAX_BYTES,
      })),
    }));
    const response: FetchResponse = await this.call('fetching records', () =>
      this.consumer.fetch({
        node: request.leader,
        topics,
        minBytes: 1,
        maxBytes: FETCH_MAX_BYTES,
        maxWaitTime: MAX_WAIT_MS,
        isolationLevel: FetchIsolationLevels.READ_COMMITTED,
      }),
    );
    const names = new Map([...topicIds].map(([name, id]) => [id, name]));
    const fetched: FetchedPartition[] = [];
    for (const topic of response.responses) {
      const name = names.get(topic.topicId);
      if (name === undefined) continue;
      for (const response of topic.partitions)
        fetched.push({ topic: name, partition: response.partitionIndex, response });
    }
    return fetched;
  }

  /** Commits offsets to the group as a consumer outside it (the group must have no active members). */
  commit(groupId: string, offsets: readonly (TopicPartition & { readonly offset: number })[]): Promise<void> {
    return this.call(`committing offsets to group "${groupId}"`, () =>
      this.admin.alterConsumerGroupOffsets({
        groupId,
        topics: byTopicWithOffsets(offsets).map(([name, partitions]) => ({
          name,
          partitionOffsets: partitions.map(({ partition, offset }) => ({
            partition,
            offset: BigInt(offset),
          })),
        })),
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.consumer.close(true), this.admin.close()]);
  }
}

/** "t\0p": a partition's name in maps. */
export function partitionName(topic: string, partition: number): string {
  return `${topic}\0${partition}`;
}

function byTopic(parts: readonly TopicPartition[]): [string, number[]][] {
  const topics = new Map<string, number[]>();
  for (const { topic, partition } of parts) {
    const list = topics.get(topic) ?? [];
    list.push(partition);
    topics.set(topic, list);
  }
  return [...topics];
}

function byTopicWithOffsets<P extends TopicPartition>(parts: readonly P[]): [string, P[]][] {
  const topics = new Map<string, P[]>();
  for (const part of parts) {
    const list = topics.get(part.topic) ?? [];
    list.push(part);
    topics.set(part.topic, list);
  }
  return [...topics];
}

function quoteList(topics: readonly string[]): string {
  return topics.map((t) => `"${t}"`).join(', ');
}
