// A source's `ratePerSec`, shared by its subtasks: records are made in slices of a fixed size, a
// slice every so often, so slice boundaries do not depend on the clock (only when a slice comes
// does). Without a rate, slices are as large as the executor's budget and never wait.
import type { MaybePromise } from '../state/maybePromise.js';

/** Slices per second when rate-limited. */
const STEPS_PER_SECOND = 100;
/**
 * How far behind its schedule a source may fall and still make up for it. A loaded machine wakes
 * a thread tens of ms after its 10 ms timer: without making up for that, a source asked for 5,000
 * records a second made 3,200 with nothing holding it back. Not more: one held back for long
 * (backpressure, a stall, a pause) comes back with a tenth of a second's records at once, not a
 * flood that fills a loop or delays the checkpoints behind it.
 */
const CATCH_UP_MS = 100;

export class RatePacer {
  /** Records a slice may make. */
  readonly perSlice: number;
  private readonly intervalMs: number;
  /** 1000 / the subtask's rate: how far each record moves the next due time. */
  private readonly msPerRecord: number;
  /** When the next slice is due (performance.now()). */
  nextDue = 0;
  /** The first slice starts the schedule: the time before it (the job opening) is not owed. */
  private started = false;

  constructor(ratePerSec: number | undefined, parallelism: number) {
    const rate = ratePerSec === undefined ? undefined : ratePerSec / parallelism;
    this.perSlice =
      rate === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(rate / STEPS_PER_SECOND));
    this.intervalMs = rate === undefined ? 0 : (1000 * this.perSlice) / rate;
    this.msPerRecord = rate === undefined ? 0 : 1000 / rate;
  }

  /** A promise to wait on before the next slice, or undefined when it may go now. */
  wait(): MaybePromise {
    if (this.intervalMs === 0) return undefined;
    if (!this.started) {
      this.started = true;
      this.nextDue = Math.max(this.nextDue, performance.now());
    }
    const wait = this.nextDue - performance.now();
    if (wait > 0) return new Promise((resolve) => setTimeout(resolve, wait));
    // Due again after the time the records of this slice take at the rate (a slice may be cut
    // short by the scheduler's budget, so count what it made, not what it could have); what fell
    // due more than CATCH_UP_MS ago is given up.
    this.nextDue = Math.max(this.nextDue, performance.now() - CATCH_UP_MS);
    return undefined;
  }

  /** A slice made `count` records. */
  made(count: number): void {
    this.nextDue += count * this.msPerRecord;
  }
}
