// The serial order of a transaction operator's records, the same on every subtask: this file is
// where the order docs/job-file.md documents ("Serial order") is kept. Each subtask numbers
// each input channel's records alike, whether it takes them all (debug runs broadcast) or only
// those of its rows (routed edges, runtime/edgeRouter.ts: the others reach it as counts of
// skipped records, `skip`, which advance its clock exactly as taking them would); merging the
// channels by a key computed from that numbering alone gives every subtask, every run and every
// restore the same order:
//   (time, channel, position)
// position counts the channel's records; time is the position itself while the channel has
// carried no event time, and otherwise the highest timestamp (or watermark) the channel has
// carried so far. So one upstream subtask keeps its order, and several merge by event time
// when there is one, round robin by position when there is none.
import type { Envelope, SkipCount } from '../../runtime/envelope.js';

export interface OrderKey {
  readonly time: number;
  readonly channel: number;
  readonly position: number;
}

export function compareOrder(a: OrderKey, b: OrderKey): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  if (a.channel !== b.channel) return a.channel - b.channel;
  return a.position - b.position;
}

/** The order as text that sorts the same way for the times seen in practice (the debugger's reports). */
export function orderText(key: OrderKey): string {
  return `${key.channel}:${key.position}@${key.time}`;
}

/**
 * A number naming one record among those in flight (the participants' rows messages, the
 * waiting transactions): its channel and position, which no two records share. A number, not
 * orderText: no string built and hashed per record.
 */
export function orderId(key: OrderKey): number {
  return key.position * 65_536 + key.channel;
}

export interface ChannelClockState {
  readonly next: number;
  readonly time: number;
  readonly timed: boolean;
  readonly watermark: number;
  readonly ended: boolean;
}

/** One input channel: the key of each record it brings, and the least key its next can have. */
export class ChannelClock {
  next = 0;
  time = Number.NEGATIVE_INFINITY;
  /** Once a record with a timestamp came: time is event time from then on. */
  timed = false;
  watermark = Number.NEGATIVE_INFINITY;
  ended = false;

  constructor(readonly channel: number) {}

  stamp(timestamp: number | undefined): OrderKey {
    const position = this.next++;
    if (timestamp !== undefined) {
      // Switching from positions to time never goes back below the position reached.
      this.time = this.timed
        ? Math.max(this.time, timestamp, this.watermark)
        : Math.max(timestamp, position, this.watermark);
      this.timed = true;
    } else if (!this.timed) {
      this.time = position;
    }
    return { time: this.time, channel: this.channel, position };
  }

  /**
   * The watermark the channel had when this clock was restored: the producer counts only those
   * it has sent since (it starts afresh with every run), the clock adds this one to them.
   */
  private restoredWatermark = Number.NEGATIVE_INFINITY;

  /**
   * Records of the channel that went to other subtasks: the clock moves exactly as `stamp` would
   * have moved it for each of them. Their times come as the index of the first timed one and the
   * highest time, each time already the higher of it and the watermark it came after (but one
   * from before a restore). Not this clock's watermark now: an untimed record's key takes `time`
   * as it stands, and that watermark may have come after the skipped records.
   */
  skip(skipped: SkipCount): void {
    const first = this.next;
    this.next += skipped[0];
    if (skipped.length === 1) {
      if (!this.timed) this.time = this.next - 1;
      return;
    }
    // Indexes, not an array pattern: after lockdown that goes through the tamed iterator.
    const firstTimed = skipped[1];
    const maxTime = skipped[2];
    this.time = this.timed
      ? Math.max(this.time, maxTime, this.restoredWatermark)
      : Math.max(maxTime, first + firstTimed, this.restoredWatermark);
    this.timed = true;
  }

  /** A watermark (Infinity: the end) on this channel: later records are at least that late in the order. */
  progress(watermark: number): void {
    if (watermark === Number.POSITIVE_INFINITY) this.ended = true;
    else if (watermark > this.watermark) this.watermark = watermark;
  }

  /** The least key the channel's next record can have. */
  bound(): OrderKey {
    if (this.ended) return { time: Number.POSITIVE_INFINITY, channel: this.channel, position: 0 };
    const time = this.timed ? Math.max(this.time, this.watermark) : this.next;
    return { time, channel: this.channel, position: this.next };
  }

  state(): ChannelClockState {
    return {
      next: this.next,
      time: this.time,
      timed: this.timed,
      watermark: this.watermark,
      ended: this.ended,
    };
  }

  restore(state: ChannelClockState): void {
    this.next = state.next;
    this.time = state.time;
    this.timed = state.timed;
    this.watermark = state.watermark;
    this.restoredWatermark = state.watermark;
    this.ended = state.ended;
  }
}

/** A record waiting for its turn. */
export interface QueuedRecord {
  readonly key: OrderKey;
  readonly envelope: Envelope;
  /**
   * Carried over by a restore from another layout of the input channels (an upstream rescaled):
   * its place among those records, the same on every subtask. Its key is the old layout's, and
   * the new channels count their positions from 0 again, so the key no longer names it alone.
   */
  readonly carried?: number;
}

/** The number naming a record in flight: orderId of its key, or for one carried over, its place. */
export function recordId(record: QueuedRecord): number {
  // Negative: no key's orderId is.
  return record.carried === undefined ? orderId(record.key) : -1 - record.carried;
}

/**
 * The records taken but not yet run, one queue per channel, and the merge over them: the next
 * record is runnable once no channel can still bring one before it.
 */
export class OrderedInput {
  readonly clocks: ChannelClock[];
  private readonly queues: QueuedRecord[][];
  private readonly heads: number[];
  /** Records a restore carried over from another layout of the input channels: they go first. */
  carried: QueuedRecord[] = [];

  constructor(channels: number) {
    this.clocks = Array.from({ length: channels }, (_, i) => new ChannelClock(i));
    this.queues = Array.from({ length: channels }, () => []);
    this.heads = this.queues.map(() => 0);
  }

  add(channel: number, envelope: Envelope): void {
    const clock = this.clocks[channel];
    if (clock === undefined) throw new Error(`internal: no input channel ${channel}`);
    this.queues[channel]!.push({ key: clock.stamp(envelope.timestamp), envelope });
  }

  /** Records of `channel` that went to other subtasks (a routed edge). */
  skip(channel: number, skipped: SkipCount): void {
    const clock = this.clocks[channel];
    if (clock === undefined) throw new Error(`internal: no input channel ${channel}`);
    clock.skip(skipped);
  }

  get size(): number {
    let n = this.carried.length;
    for (let i = 0; i < this.queues.length; i++) n += this.queues[i]!.length - this.heads[i]!;
    return n;
  }

  /** The next record in the order, if no channel can still bring an earlier one. */
  peek(): QueuedRecord | undefined {
    if (this.carried.length > 0) return this.carried[0];
    let best: QueuedRecord | undefined;
    for (let i = 0; i < this.queues.length; i++) {
      const head = this.queues[i]![this.heads[i]!];
      if (head !== undefined && (best === undefined || compareOrder(head.key, best.key) < 0)) best = head;
    }
    if (best === undefined) return undefined;
    for (let i = 0; i < this.queues.length; i++) {
      if (this.heads[i]! < this.queues[i]!.length) continue;
      if (compareOrder(this.clocks[i]!.bound(), best.key) < 0) return undefined;
    }
    return best;
  }

  /** Takes the record peek() returned. */
  take(record: QueuedRecord): void {
    if (this.carried[0] === record) {
      this.carried.shift();
      return;
    }
    const channel = record.key.channel;
    const queue = this.queues[channel]!;
    let head = this.heads[channel]! + 1;
    // Compact now and then, so a long run does not keep every record it took.
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    this.heads[channel] = head;
  }

  /** Everything queued, in channel order (for snapshots and time travel). */
  queued(): QueuedRecord[] {
    const all = [...this.carried];
    for (let i = 0; i < this.queues.length; i++) all.push(...this.queues[i]!.slice(this.heads[i]!));
    return all;
  }

  /**
   * Puts queued records and clocks back. With the same channels, each record returns to its
   * channel's queue; with another layout (an upstream rescaled) restoredQueue marked them all
   * carried. Carried records run first, in their order.
   */
  restore(records: readonly QueuedRecord[], clocks: readonly ChannelClockState[]): void {
    for (let i = 0; i < this.queues.length; i++) {
      this.queues[i] = [];
      this.heads[i] = 0;
    }
    const sameLayout = clocks.length === this.clocks.length;
    if (sameLayout) {
      for (let i = 0; i < clocks.length; i++) this.clocks[i]!.restore(clocks[i]!);
    }
    this.carried = records.filter((r) => r.carried !== undefined).sort((a, b) => a.carried! - b.carried!);
    const ordered = records.filter((r) => r.carried === undefined).sort((a, b) => compareOrder(a.key, b.key));
    if (!sameLayout && ordered.length > 0) {
      throw new Error('internal: records of another layout of the input channels are not carried');
    }
    for (const record of ordered) this.queues[record.key.channel]!.push(record);
  }
}
