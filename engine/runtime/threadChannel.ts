// The two ends of a channel whose producer and consumer run on different threads. Items cross
// in batches over the threads' link (threadLink.ts); backpressure is credit-based, as in
// Flink's network stack: the producer may have at most `capacity` items sent and not yet taken
// by the consumer, and the consumer gives credit back as it takes them. Feedback channels are
// never full, as on one thread (a loop head waiting on its own output could never drain it).
import type { PlannedEdge } from '../graph/plan.js';
import { type Channel, type InputCounter, LocalChannel } from './channel.js';
import type { ChannelItem } from './envelope.js';

/** What a producer's end needs from its link. */
export interface LinkOut {
  /** A barrier or an end of stream was queued: it goes with the next flush, however small. */
  urgent(): void;
}

/** The producer's end: queues items for the link to send, counts credit. */
export class OutboundChannel implements Channel {
  /** Items queued for the next batch. */
  pending: ChannelItem[] = [];
  /** Sent and not yet given back as credit by the consumer. */
  unacknowledged = 0;
  delivered = 0;
  ended = false;

  constructor(
    /** The channel's index among the run's cross-thread channels (both threads agree on it). */
    readonly id: number,
    readonly edge: PlannedEdge,
    readonly fromSubtask: number,
    readonly toSubtask: number,
    readonly capacity: number,
    private readonly link: LinkOut,
    /** Its consumer writes records as JSON text: they go as that text (JsonTextEnvelope). */
    readonly sendsJsonText = false,
  ) {}

  get size(): number {
    return this.pending.length + this.unacknowledged;
  }

  get full(): boolean {
    return !this.edge.feedback && this.pending.length + this.unacknowledged >= this.capacity;
  }

  push(item: ChannelItem): void {
    const pending = this.pending;
    if (item.type === 'watermark') {
      // As on one thread (LocalChannel.push): a watermark right behind another replaces it. Not
      // urgent: it goes with the records' next batch, at most a flush interval later.
      if (pending.length > 0 && pending[pending.length - 1]!.type === 'watermark') {
        pending[pending.length - 1] = item;
        return;
      }
      pending.push(item);
      return;
    }
    pending.push(item);
    if (item.type !== 'record') this.link.urgent();
  }

  /** The link sends what is queued. */
  takePending(): ChannelItem[] {
    const items = this.pending;
    this.pending = [];
    this.unacknowledged += items.length;
    return items;
  }

  credit(items: number): void {
    this.unacknowledged -= items;
  }

  shift(): ChannelItem | undefined {
    throw new Error(`internal: the producer's end of a channel of edge "${this.edge.id}" was read`);
  }

  contents(): ChannelItem[] {
    return [...this.pending];
  }

  restore(): void {
    throw new Error('internal: a run on several threads cannot go back in time');
  }
}

/** The consumer's end: a local queue the link fills; what the subtask takes becomes credit. */
export class InboundChannel extends LocalChannel {
  /** Taken since credit was last given back. */
  taken = 0;

  constructor(
    readonly id: number,
    edge: PlannedEdge,
    fromSubtask: number,
    toSubtask: number,
    capacity: number,
    consumer: InputCounter,
  ) {
    super(edge, fromSubtask, toSubtask, capacity, consumer);
  }

  /** Nothing is pushed into the consumer's end but what arrives: it is never the producer's to fill. */
  override get full(): boolean {
    return false;
  }

  override shift(): ChannelItem | undefined {
    const item = super.shift();
    if (item !== undefined) this.taken++;
    return item;
  }

  /** What arrived from the producer's thread. */
  receive(items: readonly ChannelItem[]): void {
    // Every item sent is counted as credit once taken, so none is merged on this side.
    for (const item of items) this.append(item);
  }

  /** Credit to give back: everything taken since the last time. */
  takeCredit(): number {
    const taken = this.taken;
    this.taken = 0;
    return taken;
  }
}
