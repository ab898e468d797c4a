// A source subtask's watermarks, made from its records' times as it emits them (Flink's bounded
// out-of-orderness strategy, with the contract's formula: the highest time emitted minus the
// bound). Made after every record, never on a clock: a run, its debug replay and its restore
// put the same watermarks between the same records, so they classify the same records as late.
import type { SourceEventTime } from './source.js';
import { NO_WATERMARK } from './timers.js';
import { fromStored, type StoredTime, storedTime } from './watermarkValve.js';

/** What a source subtask's checkpoint keeps of its event time. */
export interface SourceTimeState {
  readonly highest: StoredTime;
}

export class SourceWatermarks {
  /** The highest record time emitted. */
  private highest = NO_WATERMARK;
  /** The last watermark sent. */
  private sent = NO_WATERMARK;
  /** performance.now() of the last record, for idleness. */
  private lastRecordAt = performance.now();
  /** Records emitted since the last poll ended (a poll may make records and emit none). */
  private emittedSincePoll = 0;
  idle = false;

  constructor(
    private readonly strategy: SourceEventTime,
    private readonly send: (watermark: number) => void,
    private readonly sendIdle: () => void,
  ) {}

  /** After each record emitted: its time (undefined where the record has none). */
  after(timestamp: number | undefined): void {
    this.emittedSincePoll++;
    if (this.idle) this.idle = false;
    if (timestamp === undefined || timestamp <= this.highest) return;
    this.highest = timestamp;
    const watermark = timestamp - this.strategy.maxOutOfOrdernessMs;
    if (watermark > this.sent) {
      this.sent = watermark;
      this.send(watermark);
    }
  }

  /** A poll ended: a source that emitted nothing for its timeout goes idle. */
  polled(now: number): void {
    if (this.emittedSincePoll > 0) {
      this.emittedSincePoll = 0;
      this.lastRecordAt = now;
      return;
    }
    const timeout = this.strategy.idleTimeoutMs;
    if (timeout === undefined || this.idle || now - this.lastRecordAt < timeout) return;
    this.idle = true;
    this.sendIdle();
  }

  /** The watermark this source has reached. */
  get watermark(): number {
    return this.sent;
  }

  get highestTime(): number {
    return this.highest;
  }

  state(): SourceTimeState {
    return { highest: storedTime(this.highest) };
  }

  /**
   * Restore: the highest time the checkpoint's subtasks had emitted. Where the source was
   * rescaled it is the least of theirs (their splits are dealt anew): no record is called late
   * that the run had not already passed on every subtask.
   */
  restore(states: readonly SourceTimeState[]): void {
    if (states.length === 0) return;
    let least = Number.POSITIVE_INFINITY;
    for (const state of states) least = Math.min(least, fromStored(state.highest));
    if (least === Number.POSITIVE_INFINITY) return;
    this.highest = least;
    this.sent = least === NO_WATERMARK ? NO_WATERMARK : least - this.strategy.maxOutOfOrdernessMs;
  }
}
