// One parallel instance of an operator (Flink's StreamTask): it is driven by actions. Input that
// is available comes through its input gate; checkpoint triggers and completions, and the end of
// a call that went asynchronous, come through its mailbox. The executor gives it slices of work;
// within a slice it takes records from its inputs in the gate's fixed order, so a run is
// reproducible delivery by delivery. When to cut for a checkpoint, and the cut itself, are its
// checkpoint side's (subtaskCheckpointCoordinator.ts).

import { JobError } from '../graph/jobError.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { PlannedOperator } from '../graph/plan.js';
import type { KeyedState, StateSize } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { after, type MaybePromise } from '../state/maybePromise.js';
import type { Channel } from './channel.js';
import type { Emitter } from './emitter.js';
import { type ChannelItem, END_OF_STREAM, type Envelope } from './envelope.js';
import type { InputGate } from './inputGate.js';
import { LogicCalls } from './logicCalls.js';
import { Mailbox } from './mailbox.js';
import type { OperatorLogic } from './operatorLogic.js';
import { SourceWatermarks } from './sourceWatermarks.js';
import { SubtaskCheckpointCoordinator } from './subtaskCheckpointCoordinator.js';
import type { SubtaskCheckpointer } from './subtaskCheckpointing.js';
import type {
  DeliveryObserver,
  SubtaskContext,
  SubtaskOptions,
  SubtaskPhase,
  TimerTap,
} from './subtaskOptions.js';
import type { PausedSlice, SubtaskProgress } from './subtaskProgress.js';
import { SubtaskTime } from './subtaskTime.js';
import { Suspension } from './suspension.js';
import type { FiredTimer } from './timers.js';
import type { WaitReport } from './waitReport.js';

export type {
  DeliveryObserver,
  SubtaskContext,
  SubtaskOptions,
  SubtaskPhase,
  TimerTap,
} from './subtaskOptions.js';
export type { SubtaskProgress } from './subtaskProgress.js';

export class Subtask {
  readonly label: string;
  readonly operator: PlannedOperator;
  readonly subtask: number;
  readonly parallelism: number;
  readonly isSource: boolean;
  readonly emitter: Emitter;
  readonly state: KeyedState | undefined;
  readonly ordinal: number;
  readonly mailbox = new Mailbox();
  phase: SubtaskPhase = 'running';
  recordsIn = 0;
  private sourceExhausted = false;
  private stopRequested = false;
  private readonly observer: DeliveryObserver | undefined;
  private readonly calls: LogicCalls;
  private readonly stepping: boolean;
  private readonly suspension: Suspension;
  private paused: PausedSlice | undefined;
  /** Debug runs: the item the last step took, and the channel it came on. */
  taken: { readonly channel: Channel; readonly item: ChannelItem } | undefined;
  /** Debug runs: the timer the last step fired, if it fired one. */
  firedTimer: FiredTimer | undefined;
  /** Debug runs: hears each timer fired and each firing's end. */
  timerTap: TimerTap | undefined;
  /** Watermarks, timers and their firings. */
  readonly time: SubtaskTime;
  /** What the logic waits for (a server), as it last said; undefined where it cannot say. */
  readonly waitReport: WaitReport | undefined;
  /** Sources whose records carry event time: their watermarks. */
  readonly sourceWatermarks: SourceWatermarks | undefined;
  /**
   * Records that come round a loop are records in; a transaction's rows, which its subtasks
   * send each other over its own feedback edge, are its own traffic.
   */
  private readonly countsFeedback: boolean;
  private readonly checkpoints: SubtaskCheckpointCoordinator;
  /** Bound once, as they follow every slice or record that needs them. */
  private readonly flushStore = (): MaybePromise => this.store?.maybeFlush();
  private readonly releaseHeld = (): MaybePromise => {
    this.time.releaseHeld();
    return undefined;
  };

  constructor(
    private readonly context: SubtaskContext,
    readonly gate: InputGate,
    readonly logic: OperatorLogic,
    readonly store: KvStore | undefined,
    checkpointer: SubtaskCheckpointer | undefined,
    options: SubtaskOptions,
  ) {
    this.operator = context.operator;
    this.subtask = context.subtask;
    this.parallelism = context.parallelism;
    this.emitter = context.emitter;
    this.state = context.state;
    this.label = `${this.operator.id}#${this.subtask}`;
    this.isSource = findKind(this.operator.operator.kind)?.role === 'source';
    this.observer = options.observer;
    this.ordinal = options.ordinal;
    this.calls = new LogicCalls(this.operator, this.subtask, logic, options.callMarker, this.ordinal);
    this.stepping = options.stepping;
    this.waitReport = options.waitReport;
    this.suspension = new Suspension(this.mailbox, options.suspendsOnWait && !options.stepping);
    this.time = new SubtaskTime(
      gate.inputs,
      this.emitter,
      this.mailbox,
      this.state,
      store,
      options.maxParallelism,
    );
    context.timers = this.time.service;
    const eventTime = logic.eventTime;
    if (eventTime !== undefined) {
      const emitter = this.emitter;
      const watermarks = new SourceWatermarks(
        eventTime,
        (watermark) => emitter.emitWatermark(watermark),
        () => emitter.emitIdle(),
      );
      this.sourceWatermarks = watermarks;
      emitter.afterRecord = (timestamp) => watermarks.after(timestamp);
    }
    this.countsFeedback = !this.operator.transactional;
    if (logic.heldTime !== undefined) this.time.hold = () => logic.heldTime!();
    this.checkpoints = new SubtaskCheckpointCoordinator(this, checkpointer);
  }

  /** Debug runs: hears each transaction this subtask leads. */
  set transactionTap(tap: SubtaskContext['transactionTap']) {
    this.context.transactionTap = tap;
  }

  /** After a restore put the valve back: ctx.watermark says where it stands. */
  syncWatermark(): void {
    this.context.watermark = this.time.watermark;
  }

  /** The envelope being processed. */
  get current(): Envelope | undefined {
    return this.context.current;
  }

  get inputs(): readonly Channel[] {
    return this.gate.inputs;
  }

  runnable(): boolean {
    if (this.suspension.active) return !this.suspension.waiting;
    if (this.checkpoints.due !== undefined) return true;
    if (this.time.busy) return this.emitter.canSend();
    if (this.time.processingDue && this.phase !== 'finished') return true;
    if (this.phase === 'finished') return false;
    if (this.isSource) return !this.sourceExhausted && this.emitter.canSend();
    return this.gate.hasInput() && this.emitter.canSend();
  }

  /** Waiting on a call that went asynchronous: the executor waits for this subtask's mail. */
  get waiting(): boolean {
    return this.suspension.waiting;
  }

  /** Takes the mail that has come, between two slices. */
  takeMail(): void {
    for (let mail = this.mailbox.take(); mail !== undefined; mail = this.mailbox.take()) {
      switch (mail.type) {
        case 'triggerCheckpoint':
          this.checkpoints.trigger(mail.checkpointId);
          break;
        case 'checkpointComplete':
          try {
            this.logic.checkpointComplete?.(mail.checkpointId);
          } catch (error) {
            throw this.calls.failure(error);
          }
          break;
        case 'resume':
          this.suspension.resume(mail);
          break;
        case 'processingTime':
          // Taken at the next slice (runnable says so): mail comes between slices.
          break;
      }
    }
  }

  /** The checkpoint this subtask takes at its next slice, where no barrier comes to it. */
  get snapshotDue(): number | undefined {
    return this.checkpoints.due;
  }

  /** An operator with no inputs at all (not a source) has nothing to wait for. */
  get idleFromStart(): boolean {
    return !this.isSource && this.gate.width === 0;
  }

  stateSize(): StateSize | undefined {
    return this.state?.stateSize();
  }

  /** Sources stop producing; what they emitted still flows to the end. */
  requestStop(): void {
    this.stopRequested = true;
  }

  runSlice(budget: number): MaybePromise {
    const rest = this.suspension.takeRest();
    if (rest !== undefined) return this.endSlice(rest());
    // A firing finishes before a snapshot: its watermark is taken and not yet passed on, which
    // no checkpoint could hold.
    if (this.time.busy) return this.endSlice(this.fireTimers(budget));
    if (this.checkpoints.due !== undefined) return this.checkpoints.takeDue();
    if (this.phase === 'finished') return undefined;
    if (this.time.processingDue) {
      const pending = this.time.processingTimeDue(Date.now());
      if (pending !== undefined || this.time.busy) return this.endSlice(pending ?? this.fireTimers(budget));
    }
    return this.endSlice(this.isSource ? this.produceSlice(budget) : this.consumeSlice(budget));
  }

  /** A slice's state writes go to the store once it is over. */
  private endSlice(pending: MaybePromise): MaybePromise {
    return after(pending, this.flushStore);
  }

  private produceSlice(budget: number): MaybePromise {
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
    this.sourceWatermarks?.polled(performance.now());
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
    return this.endInput();
  }

  /**
   * Takes up to `budget` items, channel by channel in the gate's order. A debug run (stepping)
   * takes one item and pauses where this loop would go on; everything else is the same.
   */
  private consumeSlice(budget: number, from = 0): MaybePromise {
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
        // The item started a firing of timers: they fire before the next item is taken.
        if (pending === undefined && this.time.busy) {
          if (this.stepping) return undefined;
          return this.fireTimers(left);
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
    }
  }

  /**
   * Fires up to `budget` timers of the firing under way, one at a time; once it is over, what
   * was to follow it (the watermark going on, the end of input) runs. A debug run fires one
   * timer a step.
   */
  private async fireTimers(budget: number): Promise<void> {
    this.firedTimer = undefined;
    for (let left = budget; left > 0; left--) {
      const timer = await this.time.nextTimer();
      if (timer === undefined) {
        this.timerTap?.over();
        await this.time.finish();
        return;
      }
      this.timerTap?.firing(timer);
      await this.fire(timer);
      if (this.stepping) {
        this.firedTimer = timer;
        return;
      }
      if (this.emitter.blocked && !this.emitter.canSend()) return;
    }
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

  /**
   * Debug runs: the next item of this subtask's slice (a new slice of `budget` items when none
   * is paused), or whatever else runSlice would do: a checkpoint due, or a source's whole slice.
   * `taken` says which item it was, if any; `sliceOpen` whether the slice goes on.
   */
  stepSlice(budget: number): MaybePromise {
    this.taken = undefined;
    this.firedTimer = undefined;
    const paused = this.paused;
    if (
      paused === undefined &&
      (this.checkpoints.due !== undefined ||
        this.isSource ||
        this.phase === 'finished' ||
        this.time.busy ||
        this.time.processingDue)
    ) {
      return this.runSlice(budget);
    }
    this.paused = undefined;
    const pending =
      paused === undefined ? this.consumeSlice(budget) : this.consumeSlice(paused.left, paused.from);
    // A normal run flushes once per slice, at its end.
    return after(pending, () => (this.paused === undefined ? this.store?.maybeFlush() : undefined));
  }

  get sliceOpen(): boolean {
    return this.paused !== undefined;
  }

  private deliver(channel: Channel, envelope: Envelope): MaybePromise {
    if (this.phase === 'finished') {
      throw new JobError(
        `internal: a record reached operator "${this.operator.id}" over edge "${channel.edge.id}" after its input had ended`,
        this.operator.id,
        this.subtask,
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
    this.observer?.(this, channel, envelope);
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
        if (aligned === undefined) return this.afterRegularEnded();
        return this.checkpoints.aligned(aligned, () => this.afterRegularEnded());
      });
      this.context.watermark = this.time.watermark;
      return pending;
    };
    return after(progressed, ended);
  }

  /** Tells a logic that orders its records over every channel (transactions) how far one has come. */
  private channelProgress(channel: Channel, watermark: number): MaybePromise {
    if (this.logic.channelProgress === undefined) return undefined;
    let pending: MaybePromise;
    try {
      pending = this.logic.channelProgress(channel, watermark) ?? undefined;
    } catch (error) {
      throw this.calls.failure(error);
    }
    return after(pending, this.releaseHeld);
  }

  private afterRegularEnded(): MaybePromise {
    if (!this.gate.allRegularEnded) return undefined;
    if (this.operator.loopHead) {
      this.phase = 'awaitingLoop';
      return undefined;
    }
    // Processing-time timers still pending fire too: every timer fires before the job ends.
    return this.time.finalFiring(() => this.endInput());
  }

  /** Regular input is over: let the logic finish, then close the outputs. */
  endInput(): MaybePromise {
    const pending = this.tellInputEnded();
    if (pending !== undefined) return pending.then(() => this.closeOutputs());
    this.closeOutputs();
    return undefined;
  }

  /** Called by the executor on a quiet job: the loop's records are all delivered. */
  tellInputEnded(): MaybePromise {
    const loopHead = this.phase === 'awaitingLoop';
    if (loopHead) this.phase = 'drainingLoop';
    this.context.current = undefined;
    // The timers that records coming round the loop set fire first; the executor closes the
    // outputs only once the subtask has nothing left to run.
    if (loopHead) return this.time.finalFiring(() => this.calls.endInput());
    return this.calls.endInput();
  }

  closeOutputs(): void {
    this.phase = 'finished';
    this.time.stopWake();
    for (const channel of this.emitter.allChannels) channel.push(END_OF_STREAM);
  }

  /** After the job: anything but a loop's last ends of stream left on an input is a lost record. */
  takeFinalEndsOfStream(): void {
    const channel = this.gate.leftoverRecord();
    if (channel !== undefined) {
      throw new JobError(`internal: a record was left on edge "${channel.edge.id}" when the job ended`);
    }
  }

  /** A loop head's snapshot is waiting for its barrier to come back round (that takes steps). */
  get awaitingFeedback(): boolean {
    return this.checkpoints.awaitingFeedback;
  }

  /**
   * Time travel: whether progress() can be taken now: the logic can be put back in place, and
   * no checkpoint is being aligned, logged round a loop or written here.
   */
  get canSaveProgress(): boolean {
    return (
      this.logic.progress !== undefined &&
      !this.time.busy &&
      this.gate.quiet &&
      !this.awaitingFeedback &&
      !this.checkpoints.waiting &&
      !this.suspension.active &&
      this.mailbox.size === 0
    );
  }

  progress(): SubtaskProgress {
    return {
      phase: this.phase,
      recordsIn: this.recordsIn,
      current: this.context.current,
      gate: this.gate.progress(),
      sourceExhausted: this.sourceExhausted,
      stopRequested: this.stopRequested,
      checkpoints: this.checkpoints.progress(),
      paused: this.paused,
      emitter: this.emitter.progress(),
      logic: this.logic.progress!(),
      stateSize: this.state?.stateSize(),
      time: {
        valve: this.time.state(),
        newestRecord: this.time.newestRecord,
        forwarded: this.time.forwardedWatermark,
        timers: this.time.store?.progress(),
        source: this.sourceWatermarks?.state(),
      },
    };
  }

  /**
   * Puts the subtask back as progress() found it. Its keyed state must be rolled back with it
   * (the debugger does that), and any checkpoint in flight abandoned first.
   */
  async restoreProgress(progress: SubtaskProgress): Promise<void> {
    this.phase = progress.phase;
    this.recordsIn = progress.recordsIn;
    this.context.current = progress.current;
    this.gate.restoreProgress(progress.gate);
    this.sourceExhausted = progress.sourceExhausted;
    this.stopRequested = progress.stopRequested;
    this.checkpoints.restoreProgress(progress.checkpoints);
    this.paused = progress.paused;
    this.taken = undefined;
    this.mailbox.clear();
    this.emitter.restoreProgress(progress.emitter);
    if (progress.stateSize !== undefined) this.state?.resetSize(progress.stateSize);
    // A firing under way now belongs to the undone future: progress is only taken between firings.
    await this.time.close();
    this.firedTimer = undefined;
    if (progress.time.timers !== undefined) this.time.store?.restoreProgress(progress.time.timers);
    this.time.restore([progress.time.valve]);
    this.time.newestRecord = progress.time.newestRecord;
    this.time.forwardedWatermark = progress.time.forwarded;
    this.context.watermark = this.time.watermark;
    if (progress.time.source !== undefined) this.sourceWatermarks?.restore([progress.time.source]);
    await this.logic.restoreProgress!(progress.logic);
  }

  /** Gives up the checkpoint this subtask is taking part in (time travel goes back to before it). */
  abandonCheckpoint(): void {
    this.checkpoints.abandon();
  }

  /** The job failed or was cancelled: nothing more fires, and the logic lets go of what it holds. */
  async abort(): Promise<void> {
    await this.time.close();
    await this.logic.abort();
  }

  /** The run is over: snapshot files no completed checkpoint holds go. */
  discardSnapshots(): MaybePromise {
    return this.checkpoints.discard();
  }

  /** Turns anything thrown while this subtask worked into a message a user can act on. */
  failure(error: unknown, envelope?: Envelope, context?: string): JobError {
    return this.calls.failure(error, envelope, context);
  }
}
