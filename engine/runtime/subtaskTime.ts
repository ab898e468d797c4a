// A subtask's time: the watermark its inputs bring (the valve), the timers its keys registered,
// and the firings that run when the watermark or the wall clock passes them. The subtask takes
// items; this decides what they do to time. A firing is taken a timer at a time, in the
// subtask's slices, so a debug run steps through it timer by timer and a long one does not hold
// the thread. The watermark goes on downstream once the timers it fired have fired.
import type { KeyedState } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import type { MaybePromise } from '../state/maybePromise.js';
import { type StoredTimer, TimerStore } from '../state/timerStore.js';
import type { Channel } from './channel.js';
import type { Emitter } from './emitter.js';
import type { Mailbox } from './mailbox.js';
import { TimerFiring } from './timerFiring.js';
import {
  FINAL_WATERMARK,
  type FiredTimer,
  NO_WATERMARK,
  type TimeDomain,
  type TimerService,
} from './timers.js';
import { type ValveState, WatermarkValve } from './watermarkValve.js';

/** What a subtask's checkpoint keeps of its time: its inputs' watermarks. */
export interface SubtaskTimeState {
  readonly valve: ValveState;
}

/** A firing in progress, and what to do once it is over. */
interface Firing {
  readonly firing: TimerFiring;
  readonly then: () => MaybePromise;
}

function firedOf(domain: TimeDomain, timer: StoredTimer | undefined): FiredTimer | undefined {
  if (timer === undefined) return undefined;
  return { domain, timestamp: timer.timestamp, keyGroup: timer.keyGroup, key: timer.key };
}

/**
 * setTimeout's longest delay, 2^31 - 1 ms (about 24.8 days): Node runs a longer one after 1 ms,
 * with a TimeoutOverflowWarning, so a timer further ahead woke the subtask every millisecond.
 */
const MAX_WAKE_MS = 2 ** 31 - 1;

/**
 * How long to sleep until a processing-time timer at `timestamp`: at most MAX_WAKE_MS. A wake
 * before the timer is due fires nothing and sleeps again for what is left (processingTimeDue).
 */
function wakeDelay(timestamp: number, now: number): number {
  return Math.min(MAX_WAKE_MS, Math.max(0, timestamp - now));
}

export class SubtaskTime {
  readonly valve: WatermarkValve;
  /** Present for keyed subtasks: their timers, in the state backend. */
  readonly store: TimerStore | undefined;
  /** The timers of the current key, as logics and user code see them. */
  readonly service: TimerService | undefined;
  /** The newest record time taken (for the watermark lag). */
  newestRecord = NO_WATERMARK;
  private firing: Firing | undefined;
  private wake: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  /** The wall clock passed a processing-time timer: fire them at the next slice. */
  processingDue = false;
  /**
   * A logic that emits records later than it takes them (a transaction waiting for its turn):
   * the least event time it still holds. Watermarks going on downstream wait for it, so what it
   * emits later is not late there.
   */
  hold: (() => number) | undefined;
  /**
   * Called as event time advances, before the timers it makes due fire (the logic's
   * advanceTime: a window firing what it holds on the heap).
   */
  beforeTimers: ((watermark: number) => void) | undefined;
  /** The last watermark sent downstream, where a logic holds records back. */
  private forwarded = NO_WATERMARK;

  constructor(
    inputs: readonly Channel[],
    private readonly emitter: Emitter,
    private readonly mailbox: Mailbox,
    state: KeyedState | undefined,
    kvStore: KvStore | undefined,
    maxParallelism: number,
  ) {
    this.valve = new WatermarkValve(inputs);
    if (state === undefined || kvStore === undefined) return;
    const store = new TimerStore(kvStore, maxParallelism);
    this.store = store;
    const time = this;
    this.service = {
      register(domain: TimeDomain, timestamp: number) {
        store.register(domain, state.currentKeyGroup, state.currentKeyEncoded(), timestamp);
        if (domain === 'processingTime') time.scheduleWake(timestamp);
      },
      delete(domain: TimeDomain, timestamp: number) {
        store.delete(domain, state.currentKeyGroup, state.currentKeyEncoded(), timestamp);
      },
      get count() {
        return store.count;
      },
    };
  }

  get watermark(): number {
    return this.valve.current;
  }

  /** A firing is under way: the subtask fires timers before it takes another item. */
  get busy(): boolean {
    return this.firing !== undefined;
  }

  /** A record was taken: an idle input is active again, and the lag counts its time. */
  recordTaken(channel: Channel, timestamp: number | undefined): void {
    this.valve.recordOn(channel);
    if (timestamp !== undefined && timestamp > this.newestRecord) this.newestRecord = timestamp;
  }

  /** A watermark came on `channel`: a promise only when what follows the advance went async. */
  watermarkTaken(channel: Channel, timestamp: number): MaybePromise {
    const advanced = this.valve.watermark(channel, timestamp);
    return advanced === undefined ? undefined : this.advance(advanced, undefined);
  }

  /** The producer of `channel` went idle. */
  idleTaken(channel: Channel): MaybePromise {
    const advanced = this.valve.markIdle(channel);
    if (advanced !== undefined) return this.advance(advanced, undefined);
    if (this.valve.allIdle) this.emitter.emitIdle();
    return undefined;
  }

  /** A regular input ended; `then` runs once the timers that frees have fired. */
  inputEnded(channel: Channel, then: () => MaybePromise): MaybePromise {
    const advanced = this.valve.ended(channel);
    return advanced === undefined ? then() : this.advance(advanced, then);
  }

  /** Event time moved to `watermark`: due timers fire, then it goes on downstream. */
  private advance(watermark: number, then: (() => MaybePromise) | undefined): MaybePromise {
    this.beforeTimers?.(watermark);
    return this.start('eventTime', watermark, () => {
      this.forward(watermark);
      return then?.();
    });
  }

  /** Sends the watermark on, held back to what the logic still holds; never backwards. */
  private forward(watermark: number): void {
    // The final watermark is not sent: the end of stream that follows says more.
    if (this.hold === undefined) {
      if (watermark !== FINAL_WATERMARK) this.emitter.emitWatermark(watermark);
      return;
    }
    const held = Math.min(watermark, this.hold());
    if (held <= this.forwarded || held === FINAL_WATERMARK) return;
    this.forwarded = held;
    this.emitter.emitWatermark(held);
  }

  /** The last watermark a logic that holds records let go downstream (time travel keeps it). */
  get forwardedWatermark(): number {
    return this.forwarded;
  }

  set forwardedWatermark(watermark: number) {
    this.forwarded = watermark;
  }

  /** The logic let go of records it held: a watermark held back for them may go on now. */
  releaseHeld(): void {
    if (this.hold !== undefined && this.forwarded < this.valve.current) this.forward(this.valve.current);
  }

  /** Every regular input ended: the processing-time timers left fire too, then `then`. */
  finalFiring(then: () => MaybePromise): MaybePromise {
    this.stopWake();
    this.beforeTimers?.(FINAL_WATERMARK);
    // Event-time timers set at or after the final watermark (a loop's records set them after the
    // regular input ended) fire here too; elsewhere the final watermark has fired them all.
    return this.start('eventTime', FINAL_WATERMARK, () =>
      this.start('processingTime', FINAL_WATERMARK, then),
    );
  }

  /** The clock passed a processing-time timer (mail): fire what is due. */
  processingTimeDue(now: number): MaybePromise {
    this.processingDue = false;
    this.wakeAt = Number.POSITIVE_INFINITY;
    return this.start('processingTime', now, () => {
      this.rescheduleWake();
      return undefined;
    });
  }

  /**
   * Fires the timers due up to `upTo`, then runs `then`: at once (no timer is due, the common
   * case, which costs no read), or as the subtask takes the firing's timers (busy).
   */
  private start(domain: TimeDomain, upTo: number, then: () => MaybePromise): MaybePromise {
    const store = this.store;
    if (store === undefined || !store.mayHaveDue(domain, upTo)) return then();
    this.firing = { firing: new TimerFiring(store, domain, upTo), then };
    return undefined;
  }

  /**
   * The next timer of the firing under way; undefined once it is over (then call finish()). A
   * promise only when the timers of a key group had to be read from the store.
   */
  nextTimer(): FiredTimer | undefined | Promise<FiredTimer | undefined> {
    const firing = this.firing!.firing;
    const next = firing.next();
    if (next instanceof Promise) return next.then((timer) => firedOf(firing.domain, timer));
    return firedOf(firing.domain, next);
  }

  /** The firing is over: what was to follow it runs. */
  finish(): MaybePromise {
    const firing = this.firing!;
    this.firing = undefined;
    return firing.then();
  }

  private scheduleWake(timestamp: number): void {
    if (timestamp >= this.wakeAt) return;
    this.stopWake();
    this.wakeAt = timestamp;
    // The timer keeps the process (and a worker's event loop) alive while a timer is pending.
    this.wake = setTimeout(
      () => {
        this.wake = undefined;
        this.processingDue = true;
        this.mailbox.put({ type: 'processingTime' });
      },
      wakeDelay(timestamp, Date.now()),
    );
  }

  private rescheduleWake(): void {
    const earliest = this.store?.earliest('processingTime') ?? Number.POSITIVE_INFINITY;
    if (earliest !== Number.POSITIVE_INFINITY) this.scheduleWake(earliest);
  }

  stopWake(): void {
    if (this.wake !== undefined) clearTimeout(this.wake);
    this.wake = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  /** The run stopped: nothing more fires. */
  async close(): Promise<void> {
    this.stopWake();
    const firing = this.firing;
    this.firing = undefined;
    await firing?.firing.close();
  }

  state(): SubtaskTimeState {
    return { valve: this.valve.state() };
  }

  restore(states: readonly SubtaskTimeState[]): void {
    this.valve.restore(states.map((s) => s.valve));
    this.rescheduleWake();
  }
}
