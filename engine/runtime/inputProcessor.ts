// A subtask's input processing (Flink's StreamOneInputProcessor with its network input): a slice
// of input, either a source's own reading or the items its channels bring, in the gate's order.
// A record becomes a call into the logic; a watermark, an idle marker or a channel's end goes to
// the subtask's time, whose firings of timers are taken here too, a timer at a time; a barrier
// goes to the checkpoint side. This is the per-record path: what runs for each record is a
// handful of field writes and the call, with no promise unless the logic made one.
import { JobError } from '../graph/jobError.js';
import type { KeyedState } from '../state/keyedState.js';
import { after, type MaybePromise } from '../state/maybePromise.js';
import type { Channel } from './channel.js';
import type { Emitter } from './emitter.js';
import type { ChannelItem, Envelope, SkipCount } from './envelope.js';
import type { InputGate } from './inputGate.js';
import type { LogicCalls } from './logicCalls.js';
import type { Subtask } from './subtask.js';
import type { SubtaskCheckpointCoordinator } from './subtaskCheckpointCoordinator.js';
import type { DeliveryObserver, SubtaskContext, TimerTap } from './subtaskOptions.js';
import type { SubtaskTime } from './subtaskTime.js';
import type { Suspension } from './suspension.js';
import type { FiredTimer } from './timers.js';

/** Debug runs: where a slice paused after its last item, to go on from there. */
export interface PausedSlice {
  /** The input (counted as the slice counts them) to read next. */
  readonly from: number;
  /** Items the slice may still take. */
  readonly left: number;
}

/** Where a subtask's input stands between two steps of a debug run (time travel). */
export interface InputProgress {
  readonly recordsIn: number;
  readonly sourceExhausted: boolean;
  readonly stopRequested: boolean;
  readonly paused: PausedSlice | undefined;
}

export class InputProcessor {
  recordsIn = 0;
  sourceExhausted = false;
  private stopRequested = false;
  /** Debug runs: where the slice paused. */
  paused: PausedSlice | undefined;
  /** Debug runs: the item the last step took, and the channel it came on. */
  taken: { readonly channel: Channel; readonly item: ChannelItem } | undefined;
  /** Debug runs: the timer the last step fired, if it fired one. */
  firedTimer: FiredTimer | undefined;
  /** Debug runs: hears each timer fired and each firing's end. */
  timerTap: TimerTap | undefined;
  private readonly gate: InputGate;
  private readonly time: SubtaskTime;
  private readonly emitter: Emitter;
  private readonly state: KeyedState | undefined;
  /**
   * Records that come round a loop are records in; a transaction's rows, which its subtasks
   * send each other over its own feedback edge, are its own traffic.
   */
  private readonly countsFeedback: boolean;
  /** Bound once, as it follows every record of a logic that holds records back. */
  private readonly releaseHeld = (): MaybePromise => {
    this.time.releaseHeld();
    return undefined;
  };

  constructor(
    private readonly task: Subtask,
    private readonly context: SubtaskContext,
    private readonly calls: LogicCalls,
    private readonly suspension: Suspension,
    private readonly checkpoints: SubtaskCheckpointCoordinator,
    private readonly observer: DeliveryObserver | undefined,
    /** Debug runs: a slice pauses after every item and every timer. */
    private readonly stepping: boolean,
  ) {
    this.gate = task.gate;
    this.time = task.time;
    this.emitter = task.emitter;
    this.state = task.state;
    this.countsFeedback = !task.operator.transactional;
  }

  /** Sources stop producing; what they emitted still flows to the end. */
  requestStop(): void {
    this.stopRequested = true;
  }

  produceSlice(budget: number): MaybePromise {
    if (this.stopRequested) return this.exhaust();
    const produced = this.calls.produce(budget);
    if (typeof produced === 'number') return this.afterProduce(produced);
    let count = 0;
    const pending = produced.then((n) => {
      count = n;
    });
    return this.suspension.whenSettled(pending, () => this.afterProduce(count));
  }

  private afterProduce(count: number): MaybePromise {
    this.task.sourceWatermarks?.polled(performance.now());
    // A checkpoint waits for a source not ready for it (a database snapshot being read): it is
    // taken after the slice that made the source ready, before its input ends.
    if (this.checkpoints.waiting) {
      const snapshot = this.checkpoints.snapshotIfReady();
      if (snapshot !== undefined) return snapshot.then(() => this.afterProduce(count));
    }
    if (count < 0) return this.exhaust();
    this.recordsIn += count;
    return undefined;
  }

  private exhaust(): MaybePromise {
    this.sourceExhausted = true;
    return this.task.endInput();
  }

  /**
   * Takes up to `budget` items, channel by channel in the gate's order. A debug run (stepping)
   * takes one item and pauses where this loop would go on; everything else is the same.
   */
  consumeSlice(budget: number, from = 0): MaybePromise {
    const gate = this.gate;
    let left = budget;
    for (let i = from; i < gate.width && left > 0; i++) {
      const channel = gate.channelAt(i);
      while (left > 0) {
        if (gate.isBlocked(channel)) break;
        const item = channel.shift();
        if (item === undefined) break;
        left--;
        if (this.stepping) this.taken = { channel, item };
        const pending = this.takeItem(channel, item);
        // The item started a firing of timers: they fire before the next item is taken, out of
        // this slice's budget. One that is over at once (cached timers, synchronous logic) lets
        // the slice go on: a watermark after every record must not end a slice each.
        if (pending === undefined && this.time.busy) {
          if (this.stepping) return undefined;
          const firing = this.fireFrom(left);
          if (firing !== undefined || this.time.busy) return firing;
          left = this.left;
          if (this.emitter.blocked && !this.emitter.canSend()) return undefined;
          continue;
        }
        if (pending !== undefined) {
          // A snapshot's synchronous part ends the slice; an async function's record goes on
          // from the first input once it has settled (a paused slice, in a debug run).
          if (item.type !== 'record') return pending;
          const rest = left;
          return this.suspension.whenSettled(pending, () => {
            if (rest === 0) return undefined;
            if (!this.stepping) return this.consumeSlice(rest);
            this.paused = { from: 0, left: rest };
            return undefined;
          });
        }
        if (item.type === 'record' && this.emitter.blocked && !this.emitter.canSend()) return undefined;
        if (this.stepping) {
          this.paused = { from: i, left };
          return undefined;
        }
      }
    }
    gate.endSlice();
    return undefined;
  }

  private takeItem(channel: Channel, item: ChannelItem): MaybePromise {
    switch (item.type) {
      case 'record': {
        this.gate.recordTaken(channel, item);
        const pending = this.deliver(channel, item);
        if (!this.checkpoints.waiting) return pending;
        return after(pending, this.checkpoints.snapshotIfReady);
      }
      case 'barrier': {
        if (channel.edge.feedback) {
          this.checkpoints.feedbackDone(this.gate.feedbackBarrier(channel, item.checkpointId));
          return undefined;
        }
        const aligned = this.gate.regularBarrier(channel, item.checkpointId);
        return aligned === undefined ? undefined : this.checkpoints.aligned(aligned, undefined);
      }
      case 'watermark': {
        if (channel.edge.feedback) return undefined;
        const progressed = this.channelProgress(channel, item.timestamp);
        if (progressed === undefined) return this.watermarkTaken(channel, item.timestamp);
        return progressed.then(() => this.watermarkTaken(channel, item.timestamp));
      }
      case 'idle': {
        const pending = this.time.idleTaken(channel);
        this.context.watermark = this.time.watermark;
        return pending;
      }
      case 'end':
        return this.channelEnded(channel);
      case 'skipped':
        return this.channelSkipped(channel, item.skipped);
    }
  }

  private deliver(channel: Channel, envelope: Envelope): MaybePromise {
    const task = this.task;
    if (task.phase === 'finished') {
      throw new JobError(
        `internal: a record reached operator "${task.operator.id}" over edge "${channel.edge.id}" after its input had ended`,
        task.operator.id,
        task.subtask,
      );
    }
    if (this.countsFeedback || !channel.edge.feedback) this.recordsIn++;
    this.context.current = envelope;
    this.context.input = channel.edge.id;
    this.context.inputChannel = channel;
    this.time.recordTaken(channel, envelope.timestamp);
    const lineage = this.emitter.lineage;
    lineage.timestamp = envelope.timestamp;
    lineage.source = envelope.source;
    lineage.position = envelope.position;
    this.state?.setKey(envelope.keyGroup, envelope.key);
    this.observer?.(task, channel, envelope);
    const pending = this.calls.process(envelope);
    if (this.time.hold === undefined) return pending;
    // What the logic emitted may have let go of a watermark it held back.
    return after(pending, this.releaseHeld);
  }

  private watermarkTaken(channel: Channel, timestamp: number): MaybePromise {
    const pending = this.time.watermarkTaken(channel, timestamp);
    this.context.watermark = this.time.watermark;
    return pending;
  }

  private channelEnded(channel: Channel): MaybePromise {
    if (channel.edge.feedback) {
      this.checkpoints.feedbackDone(this.gate.feedbackEndTaken(channel));
      return undefined;
    }
    const aligned = this.gate.regularEndTaken(channel);
    const progressed = this.channelProgress(channel, Number.POSITIVE_INFINITY);
    // The input's end is its final watermark: the timers it frees fire first.
    const ended = () => {
      const pending = this.time.inputEnded(channel, () => {
        this.context.watermark = this.time.watermark;
        if (aligned === undefined) return this.task.regularInputEnded();
        return this.checkpoints.aligned(aligned, () => this.task.regularInputEnded());
      });
      this.context.watermark = this.time.watermark;
      return pending;
    };
    return after(progressed, ended);
  }

  /** Tells a logic that orders its records over every channel (transactions) how far one has come. */
  private channelProgress(channel: Channel, watermark: number): MaybePromise {
    const logic = this.task.logic;
    if (logic.channelProgress === undefined) return undefined;
    return this.orderingCall(() => logic.channelProgress!(channel, watermark));
  }

  /** A routed channel's progress mark: records that went to other subtasks (transactions). */
  private channelSkipped(channel: Channel, skipped: SkipCount): MaybePromise {
    const logic = this.task.logic;
    if (logic.channelSkipped === undefined) return undefined;
    return this.orderingCall(() => logic.channelSkipped!(channel, skipped));
  }

  /**
   * A call that may let an ordering logic go on: what it throws names the operator, and what it
   * emitted may release a watermark held back.
   */
  private orderingCall(call: () => void | Promise<void>): MaybePromise {
    let pending: MaybePromise;
    try {
      pending = call() ?? undefined;
    } catch (error) {
      throw this.calls.failure(error);
    }
    return after(pending, this.releaseHeld);
  }

  /**
   * Fires up to `budget` timers of the firing under way, one at a time; once it is over, what
   * was to follow it (the watermark going on, the end of input) runs. A debug run fires one
   * timer a step. A promise only when a timer's read or call went asynchronous.
   */
  fireTimers(budget: number): MaybePromise {
    this.firedTimer = undefined;
    return this.fireFrom(budget);
  }

  /** What fireFrom left of its budget when it returned without a promise. */
  private left = 0;

  private fireFrom(budget: number): MaybePromise {
    for (let left = budget; left > 0; left--) {
      const goOn = this.fireNext();
      if (goOn instanceof Promise) {
        return goOn.then((again) => (again && left > 1 ? this.fireFrom(left - 1) : undefined));
      }
      if (!goOn) {
        this.left = left - 1;
        return undefined;
      }
    }
    this.left = 0;
    return undefined;
  }

  /** Fires the firing's next timer, or finishes it: whether to go on with the next. */
  private fireNext(): boolean | Promise<boolean> {
    const next = this.time.nextTimer();
    if (next instanceof Promise) return next.then((timer) => this.fireTaken(timer));
    return this.fireTaken(next);
  }

  private fireTaken(timer: FiredTimer | undefined): boolean | Promise<boolean> {
    if (timer === undefined) {
      this.timerTap?.over();
      const finished = this.time.finish();
      return finished === undefined ? false : finished.then(() => false);
    }
    this.timerTap?.firing(timer);
    const fired = this.fire(timer);
    const goOn = (): boolean => {
      if (this.stepping) {
        this.firedTimer = timer;
        return false;
      }
      return !(this.emitter.blocked && !this.emitter.canSend());
    };
    return fired === undefined ? goOn() : fired.then(goOn);
  }

  private fire(timer: FiredTimer): MaybePromise {
    this.context.current = undefined;
    this.context.input = undefined;
    const lineage = this.emitter.lineage;
    lineage.timestamp = timer.domain === 'eventTime' ? timer.timestamp : undefined;
    lineage.source = undefined;
    lineage.position = 0;
    this.state?.setKey(timer.keyGroup, timer.key);
    return this.calls.onTimer(timer);
  }

  progress(): InputProgress {
    return {
      recordsIn: this.recordsIn,
      sourceExhausted: this.sourceExhausted,
      stopRequested: this.stopRequested,
      paused: this.paused,
    };
  }

  restoreProgress(progress: InputProgress): void {
    this.recordsIn = progress.recordsIn;
    this.sourceExhausted = progress.sourceExhausted;
    this.stopRequested = progress.stopRequested;
    this.paused = progress.paused;
    this.taken = undefined;
  }
}
