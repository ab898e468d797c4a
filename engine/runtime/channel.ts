// A channel joins one producer subtask to one consumer subtask of an edge: a bounded FIFO of
// plain-data items. Subtasks see only the Channel interface, so an executor may give them a
// channel whose ends are on two threads; LocalChannel is the one whose ends share a thread.
import type { PlannedEdge } from '../graph/plan.js';
import type { ChannelItem } from './envelope.js';

export interface Channel {
  readonly edge: PlannedEdge;
  readonly fromSubtask: number;
  readonly toSubtask: number;
  readonly capacity: number;
  /** Records delivered through this channel, for metrics. */
  delivered: number;
  /** Set by the consumer once it has taken the end-of-stream. */
  ended: boolean;
  readonly size: number;
  /** The producer is held back (backpressure). */
  readonly full: boolean;
  push(item: ChannelItem): void;
  shift(): ChannelItem | undefined;
  /** Time travel (debug runs): what is queued, oldest first. */
  contents(): ChannelItem[];
  /** Time travel (debug runs): puts the channel back as `contents()` and the counters were. */
  restore(items: readonly ChannelItem[], delivered: number, ended: boolean): void;
}

/** Counts input items queued for one consumer, so "has input" costs no channel scan. */
export interface InputCounter {
  queued: number;
}

export class LocalChannel implements Channel {
  /**
   * A ring, its length a power of two, kept however often the channel runs empty: giving the
   * array up then and growing it again cost ~30 bytes a record (measured; channel.test.ts).
   */
  private items: (ChannelItem | undefined)[] = emptyRing(16);
  private head = 0;
  private count = 0;
  /** Records delivered through this channel, for metrics. */
  delivered = 0;
  /** Set by the consumer once it has taken the end-of-stream. */
  ended = false;

  constructor(
    readonly edge: PlannedEdge,
    readonly fromSubtask: number,
    readonly toSubtask: number,
    /**
     * Items beyond which the producer is held back (backpressure). Feedback channels are never
     * full: a loop head that waited on its own output could never drain it. The scheduler keeps
     * them short instead by always draining feedback input first.
     */
    readonly capacity: number,
    private readonly consumer: InputCounter,
  ) {}

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return !this.edge.feedback && this.count >= this.capacity;
  }

  push(item: ChannelItem): void {
    // A watermark right behind another says all the first one did: it takes its place, so a
    // consumer that fell behind does not step through every advance (what it does is the same).
    if (item.type === 'watermark' && this.count > 0) {
      const last = (this.head + this.count - 1) & (this.items.length - 1);
      if (this.items[last]!.type === 'watermark') {
        this.items[last] = item;
        return;
      }
    }
    this.append(item);
  }

  /** Queues an item as it is. */
  protected append(item: ChannelItem): void {
    let items = this.items;
    if (this.count === items.length) items = this.grow();
    items[(this.head + this.count) & (items.length - 1)] = item;
    this.count++;
    this.consumer.queued++;
  }

  /** Twice the room, the items in order from index 0. */
  private grow(): (ChannelItem | undefined)[] {
    const items = this.contents() as (ChannelItem | undefined)[];
    const length = items.length * 2;
    for (let i = items.length; i < length; i++) items.push(undefined);
    this.items = items;
    this.head = 0;
    return items;
  }

  shift(): ChannelItem | undefined {
    if (this.count === 0) return undefined;
    const items = this.items;
    const item = items[this.head];
    items[this.head] = undefined;
    this.head = (this.head + 1) & (items.length - 1);
    this.count--;
    this.consumer.queued--;
    return item;
  }

  /** Time travel (debug runs): what is queued, oldest first. */
  contents(): ChannelItem[] {
    const items = this.items;
    const mask = items.length - 1;
    const out: ChannelItem[] = [];
    for (let i = 0; i < this.count; i++) out.push(items[(this.head + i) & mask]!);
    return out;
  }

  /** Time travel (debug runs): puts the channel back as `contents()` and the counters were. */
  restore(items: readonly ChannelItem[], delivered: number, ended: boolean): void {
    this.consumer.queued += items.length - this.count;
    let length = 16;
    while (length < items.length) length *= 2;
    const ring: (ChannelItem | undefined)[] = [...items];
    while (ring.length < length) ring.push(undefined);
    this.items = ring;
    this.head = 0;
    this.count = items.length;
    this.delivered = delivered;
    this.ended = ended;
  }
}

/**
 * Slots filled with undefined, never holes: once lockdown has frozen Array.prototype, a store into
 * a hole takes V8's slow path (see recordCopy.ts).
 */
function emptyRing(length: number): (ChannelItem | undefined)[] {
  const ring: (ChannelItem | undefined)[] = [];
  for (let i = 0; i < length; i++) ring.push(undefined);
  return ring;
}
