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
  private items: (ChannelItem | undefined)[] = [];
  private head = 0;
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
    return this.items.length - this.head;
  }

  get full(): boolean {
    return !this.edge.feedback && this.items.length - this.head >= this.capacity;
  }

  push(item: ChannelItem): void {
    // A watermark right behind another says all the first one did: it takes its place, so a
    // consumer that fell behind does not step through every advance (what it does is the same).
    if (item.type === 'watermark' && this.items.length > this.head) {
      const last = this.items.length - 1;
      if (this.items[last]!.type === 'watermark') {
        this.items[last] = item;
        return;
      }
    }
    this.append(item);
  }

  /** Queues an item as it is. */
  protected append(item: ChannelItem): void {
    this.items.push(item);
    this.consumer.queued++;
  }

  shift(): ChannelItem | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    this.consumer.queued--;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head >= 4096 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Time travel (debug runs): what is queued, oldest first. */
  contents(): ChannelItem[] {
    return this.items.slice(this.head) as ChannelItem[];
  }

  /** Time travel (debug runs): puts the channel back as `contents()` and the counters were. */
  restore(items: readonly ChannelItem[], delivered: number, ended: boolean): void {
    this.consumer.queued += items.length - this.size;
    this.items = [...items];
    this.head = 0;
    this.delivered = delivered;
    this.ended = ended;
  }
}
