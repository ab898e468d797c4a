// A bounded FIFO between one producer subtask and one consumer subtask of an edge.
import type { PlannedEdge } from '../graph/plan.js';
import type { ChannelItem } from './envelope.js';

/** Counts input items queued for one consumer, so "has input" costs no channel scan. */
export interface InputCounter {
  queued: number;
}

export class Channel {
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
