// One parallel instance of an operator (Flink's StreamTask), in Flink's three parts, so that each
// reads on its own and the per-record path is in one place: input processing (inputProcessor.ts)
// takes what the input gate brings and calls the logic; the checkpoint side
// (subtaskCheckpointCoordinator.ts) decides when to cut and hands the cut to the checkpointer; the
// mailbox processor (mailboxProcessor.ts) takes the mail between slices (checkpoint triggers and
// completions, the end of a call that went asynchronous) and decides what a slice does. The
// subtask holds what the three share, its phases from running to finished, and what the
// executors, the debugger and time travel see of it.

import { JobError } from '../graph/jobError.js';
import { findKind } from '../graph/kinds/kindRegistry.js';
import type { PlannedOperator } from '../graph/plan.js';
import type { KeyedState, StateSize } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { Channel } from './channel.js';
import type { Emitter } from './emitter.js';
import { type ChannelItem, END_OF_STREAM, type Envelope } from './envelope.js';
import type { InputGate } from './inputGate.js';
import { InputProcessor } from './inputProcessor.js';
import { LogicCalls } from './logicCalls.js';
import { Mailbox } from './mailbox.js';
import { MailboxProcessor } from './mailboxProcessor.js';
import type { OperatorLogic } from './operatorLogic.js';
import { SourceWatermarks } from './sourceWatermarks.js';
import { SubtaskCheckpointCoordinator } from './subtaskCheckpointCoordinator.js';
import type { SubtaskCheckpointer } from './subtaskCheckpointing.js';
import { SubtaskLoad } from './subtaskLoad.js';
import type { SubtaskContext, SubtaskOptions, SubtaskPhase, TimerTap } from './subtaskOptions.js';
import type { SubtaskProgress } from './subtaskProgress.js';
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
  /** Where its time goes (busy, backpressured, idle), as its executor's meter measures it. */
  readonly load = new SubtaskLoad();
  phase: SubtaskPhase = 'running';
  /** Watermarks, timers and their firings. */
  readonly time: SubtaskTime;
  /** What the logic waits for (a server), as it last said; undefined where it cannot say. */
  readonly waitReport: WaitReport | undefined;
  /** Sources whose records carry event time: their watermarks. */
  readonly sourceWatermarks: SourceWatermarks | undefined;
  private readonly calls: LogicCalls;
  private readonly suspension: Suspension;
  private readonly input: InputProcessor;
  private readonly checkpoints: SubtaskCheckpointCoordinator;
  private readonly mailboxProcessor: MailboxProcessor;

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
    this.ordinal = options.ordinal;
    this.calls = new LogicCalls(this.operator, this.subtask, logic, options.callMarker, this.ordinal);
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
    if (logic.heldTime !== undefined) this.time.hold = () => logic.heldTime!();
    if (logic.advanceTime !== undefined) {
      const calls = this.calls;
      this.time.beforeTimers = (watermark) => {
        try {
          logic.advanceTime!(watermark);
        } catch (error) {
          throw calls.failure(error);
        }
      };
    }
    this.checkpoints = new SubtaskCheckpointCoordinator(this, checkpointer);
    this.input = new InputProcessor(
      this,
      context,
      this.calls,
      this.suspension,
      this.checkpoints,
      options.observer,
      options.stepping,
    );
    this.mailboxProcessor = new MailboxProcessor(this, this.input, this.checkpoints, this.suspension);
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

  get recordsIn(): number {
    return this.input.recordsIn;
  }

  runnable(): boolean {
    return this.mailboxProcessor.runnable();
  }

  /** Something to do, room for its output or not (see MailboxProcessor.hasWork). */
  hasWork(): boolean {
    return this.mailboxProcessor.hasWork();
  }

  /** A source on a schedule: when its next records are due (see OperatorLogic.dueAt). */
  dueAt(): number | undefined {
    return this.logic.dueAt?.();
  }

  /** Waiting on a call that went asynchronous: the executor waits for this subtask's mail. */
  get waiting(): boolean {
    return this.mailboxProcessor.waiting;
  }

  /** Takes the mail that has come, between two slices. */
  takeMail(): void {
    this.mailboxProcessor.takeMail();
  }

  runSlice(budget: number): MaybePromise {
    return this.mailboxProcessor.runSlice(budget);
  }

  /** Debug runs: one item of a slice (see MailboxProcessor.stepSlice). */
  stepSlice(budget: number): MaybePromise {
    return this.mailboxProcessor.stepSlice(budget);
  }

  get sliceOpen(): boolean {
    return this.mailboxProcessor.sliceOpen;
  }

  /** Debug runs: the item the last step took, and the channel it came on. */
  get taken(): { readonly channel: Channel; readonly item: ChannelItem } | undefined {
    return this.input.taken;
  }

  /** Debug runs: the timer the last step fired, if it fired one. */
  get firedTimer(): FiredTimer | undefined {
    return this.input.firedTimer;
  }

  /** Debug runs: hears each timer fired and each firing's end. */
  set timerTap(tap: TimerTap | undefined) {
    this.input.timerTap = tap;
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
    this.input.requestStop();
  }

  /**
   * A regular input ended. Once all have, the input is over, unless records can still come
   * round a loop: a loop head then waits for the job to be quiet (tellInputEnded).
   */
  regularInputEnded(): MaybePromise {
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
    this.emitter.tellSkipped();
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
      current: this.context.current,
      gate: this.gate.progress(),
      input: this.input.progress(),
      checkpoints: this.checkpoints.progress(),
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
    this.context.current = progress.current;
    this.gate.restoreProgress(progress.gate);
    this.input.restoreProgress(progress.input);
    this.checkpoints.restoreProgress(progress.checkpoints);
    this.mailbox.clear();
    this.emitter.restoreProgress(progress.emitter);
    if (progress.stateSize !== undefined) this.state?.resetSize(progress.stateSize);
    // A firing under way now belongs to the undone future: progress is only taken between firings.
    await this.time.close();
    this.input.firedTimer = undefined;
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
