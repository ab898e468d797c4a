// A routed edge: one whose consumer says which of its subtasks take each record (a transaction
// operator: the owners of the record's rows, Calvin's sequencer). The producer sends the record
// to those only, and tells each other subtask how many records it skipped (a progress mark), so
// that every subtask still numbers the channel's records alike and knows when nothing earlier is
// coming: the serial order each walks is the one of a broadcast edge (txOrder.ts keeps it).
import type { SkipCount } from './envelope.js';

export interface EdgeRouter {
  /**
   * The consumer subtasks that take `value`, ascending, or undefined for every one. The array
   * may be the router's own, valid until its next call.
   */
  targets(value: unknown): readonly number[] | undefined;
}

/** Per channel of a routed edge: the records skipped since the last item sent on it. */
export class SkipTally {
  private readonly counts: number[];
  private readonly firstTimed: number[];
  private readonly maxTimes: number[];
  /** Some channel has a count to send. */
  pending = false;

  constructor(channels: number) {
    this.counts = new Array<number>(channels).fill(0);
    this.firstTimed = new Array<number>(channels).fill(-1);
    this.maxTimes = new Array<number>(channels).fill(Number.NEGATIVE_INFINITY);
  }

  /**
   * A record with event time `timestamp` went elsewhere; `watermark`: the highest the producer
   * has sent since it opened (a consumer's clock counts the watermark a record came after).
   */
  skip(channel: number, timestamp: number | undefined, watermark: number): void {
    const count = this.counts[channel]!;
    if (timestamp !== undefined) {
      if (this.firstTimed[channel]! < 0) this.firstTimed[channel] = count;
      const time = timestamp > watermark ? timestamp : watermark;
      if (time > this.maxTimes[channel]!) this.maxTimes[channel] = time;
    }
    this.counts[channel] = count + 1;
    this.pending = true;
  }

  /** What channel `channel` has skipped since its last item, now told (undefined: nothing). */
  take(channel: number): SkipCount | undefined {
    const count = this.counts[channel]!;
    if (count === 0) return undefined;
    const first = this.firstTimed[channel]!;
    const told: SkipCount = first < 0 ? [count] : [count, first, this.maxTimes[channel]!];
    this.counts[channel] = 0;
    this.firstTimed[channel] = -1;
    this.maxTimes[channel] = Number.NEGATIVE_INFINITY;
    return told;
  }
}
