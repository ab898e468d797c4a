// One firing of timers up to a time (a watermark, or the wall clock): every timer due, across
// the subtask's key groups, in order of time, then key group, then key (Flink fires a subtask's
// timers in time order too). Each key group's first timers are on the heap (state/timerStore.ts),
// so a timer is taken without a read, synchronously; only a group whose cache ran dry while the
// store holds more is read, its next timers at a time, so a million due timers are never all
// held at once. A timer the firing itself registers, if due, fires in the same firing, in its
// turn; one deleted before its turn does not.
import type { TimerDomain } from '../state/timerKeys.js';
import type { StoredTimer, TimerStore } from '../state/timerStore.js';

export class TimerFiring {
  constructor(
    private readonly timers: TimerStore,
    readonly domain: TimerDomain,
    /** Timers at or before this time fire. */
    readonly upTo: number,
  ) {}

  /**
   * The next timer to fire, taken out of the store; undefined once none is due. A promise only
   * when a key group's timers had to be read from the store.
   */
  next(): StoredTimer | undefined | Promise<StoredTimer | undefined> {
    const timers = this.timers;
    const keyGroup = timers.nextDueGroup(this.domain, this.upTo);
    if (keyGroup < 0) return undefined;
    if (timers.mustRead(this.domain, keyGroup)) {
      return timers.read(this.domain, keyGroup).then(() => this.next());
    }
    return timers.takeFirst(this.domain, keyGroup);
  }

  /** The run stopped while firing: nothing is held open between two timers. */
  async close(): Promise<void> {}
}
