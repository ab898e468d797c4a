// source.kafka's splits, as Flink's KafkaSource has them: a partition with the next offset to
// read (and, for a bounded read, the offset it stops at). The enumerator cannot ask the broker
// (assign() is synchronous), so each subtask also holds a *share*: "the partitions whose owner is
// subtask `part` of `of`", by Flink's owner function of topic and partition; the reader finds the
// topics' partitions itself and reads those of its share, now and as new ones appear. A snapshot
// keeps the share with the partitions, so a restore at another parallelism deals the partitions
// by the same function and its readers still discover new ones.
import type { SplitEnumerator, SplitSerializer } from '../../../runtime/source.js';

/** The partitions of a subtask's share, found by the reader. */
export interface KafkaShare {
  readonly part: number;
  readonly of: number;
  /** A fresh start: partitions found at the first open start at startingOffsets, later ones at earliest. */
  readonly fresh: boolean;
}

/** One partition and where reading it stands. */
export interface KafkaPartitionSplit {
  readonly topic: string;
  readonly partition: number;
  /** The next offset to read. */
  readonly offset: number;
  /** A bounded read (stopAt): the offset it ends before, fixed at the first open. */
  readonly end?: number | undefined;
}

export type KafkaSplit = KafkaShare | KafkaPartitionSplit;

export function isShare(split: KafkaSplit): split is KafkaShare {
  return 'part' in split;
}

/** Java's String.hashCode, so that a topic's partitions land where Flink would put them. */
function javaHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The subtask of `parallelism` that reads a partition: Flink's KafkaSourceEnumerator.getSplitOwner,
 * a topic's partitions round-robin from a start that depends on the topic's name.
 */
export function partitionOwner(topic: string, partition: number, parallelism: number): number {
  const start = ((Math.imul(javaHashCode(topic), 31) & 0x7fffffff) % parallelism) | 0;
  return (start + partition) % parallelism;
}

export const kafkaSplitSerializer: SplitSerializer<KafkaSplit> = {
  toPayload: (split) =>
    isShare(split)
      ? { part: split.part, of: split.of, fresh: split.fresh }
      : split.end === undefined
        ? { topic: split.topic, partition: split.partition, offset: split.offset }
        : { topic: split.topic, partition: split.partition, offset: split.offset, end: split.end },
  fromPayload: (payload) => {
    const p = payload as Record<string, unknown>;
    if (typeof p.part === 'number') return { part: p.part, of: p.of as number, fresh: p.fresh === true };
    return {
      topic: p.topic as string,
      partition: p.partition as number,
      offset: p.offset as number,
      end: typeof p.end === 'number' ? p.end : undefined,
    };
  },
};

/**
 * A fresh start: subtask s of p gets the share (s, p). A restore: a share per new subtask, not
 * fresh, and each restored partition to its owner at the new parallelism (the shares of the old
 * subtasks are dropped: the new shares cover every partition).
 */
export const kafkaEnumerator: SplitEnumerator<KafkaSplit> = {
  assign(parallelism, restored) {
    const dealt: KafkaSplit[][] = Array.from({ length: parallelism }, (_, part) => [
      { part, of: parallelism, fresh: restored === undefined },
    ]);
    const seen = new Set<string>();
    for (const split of restored ?? []) {
      if (isShare(split)) continue;
      const name = `${split.topic}\0${split.partition}`;
      if (seen.has(name)) continue;
      seen.add(name);
      dealt[partitionOwner(split.topic, split.partition, parallelism)]!.push(split);
    }
    return dealt;
  },
};
