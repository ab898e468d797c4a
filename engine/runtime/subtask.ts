// One parallel instance of an operator: its input channels, its emitter, its state, and the
// kind's logic. The scheduler gives it slices of work; within a slice it takes records from its
// inputs in a fixed order, so a run is reproducible delivery by delivery.

import type { SourceSplit, SubtaskSnapshot } from '../checkpoint/checkpointMetadata.js';
import type { CheckpointStorage } from '../checkpoint/checkpointStorage.js';
import type { StateSnapshots } from '../checkpoint/stateSnapshots.js';
import { JobError } from '../graph/jobError.js';
import type { PlannedOperator } from '../graph/plan.js';
import { describeUserThrow } from '../sandbox/userCode.js';
import type { KeyedState, StateSize } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import { BarrierAligner, type FeedbackLog } from './barrierAligner.js';
import type { CallMarker } from './callMarker.js';
import type { Channel, InputCounter } from './channel.js';
import type { Emitter, EmitterProgress } from './emitter.js';
import { barrier, type ChannelItem, END_OF_STREAM, type Envelope } from './envelope.js';
import type { OperatorLogic, SubtaskEnvironment } from './operatorLogic.js';
import { describeRecordSource } from './recordSource.js';

export type SubtaskPhase =
  /** Taking records. */
  | 'running'
  /** A loop head whose regular inputs have ended: it ends when the whole job is quiet. */
  | 'awaitingLoop'
  /** A loop head told that input ended; records still come round the loop. */
  | 'drainingLoop'
  | 'finished';

export type DeliveryObserver = (subtask: Subtask, channel: Channel, envelope: Envelope) => void;

/** What one subtask contributes to one checkpoint, once its files are written. */
export interface SubtaskAck {
  readonly snapshot: SubtaskSnapshot;
  readonly persistedBytes: number;
  readonly fullBytes: number;
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly alignmentMs: number;
  readonly inFlightRecords: number;
}

export interface CheckpointAcker {
  acknowledge(subtask: Subtask, checkpointId: number, ack: Promise<SubtaskAck>): void;
}

/** Debug runs: where a slice paused after its last item, to go on from there. */
interface PausedSlice {
  /** The input (counted as the slice counts them) to read next. */
  readonly from: number;
  /** Items the slice may still take. */
  readonly left: number;
}

/**
 * A subtask between two steps of a debug run, as data (time travel). Only taken while no
 * checkpoint has reached it beyond being started: nothing is aligned, held back or logged.
 */
export interface SubtaskProgress {
  readonly phase: SubtaskPhase;
  readonly recordsIn: number;
  readonly current: Envelope | undefined;
  readonly regularEnded: number;
  readonly rotation: number;
  readonly sourceExhausted: boolean;
  readonly stopRequested: boolean;
  readonly barrierDue: number | undefined;
  /** A checkpoint started whose barrier has not come yet. */
  readonly expected: number | undefined;
  readonly paused: PausedSlice | undefined;
  readonly emitter: EmitterProgress;
  readonly logic: unknown;
  readonly stateSize: StateSize | undefined;
}

/** How a subtask takes part in checkpoints (absent when they are off). */
export interface CheckpointParticipation {
  readonly storage: CheckpointStorage;
  readonly acker: CheckpointAcker;
  readonly state: StateSnapshots | undefined;
}

export class Subtask implements SubtaskEnvironment {
  readonly label: string;
  readonly parallelism: number;
  readonly isSource: boolean;
  current: Envelope | undefined;
  phase: SubtaskPhase = 'running';
  recordsIn = 0;
  logic!: OperatorLogic;
  observer: DeliveryObserver | undefined;
  private readonly feedbackInputs: number;
  private readonly regularInputs: number;
  private regularEnded = 0;
  /** Rotates which regular input is read first, so a union is fair. */
  private rotation = 0;
  private sourceExhausted = false;
  private stopRequested = false;
  /** A checkpoint to take before the next record: at sources, and where no input can bring a barrier. */
  private barrierDue: number | undefined;
  private readonly aligner: BarrierAligner;
  checkpointing: CheckpointParticipation | undefined;
  restoredSplits: readonly SourceSplit[] | undefined;
  /**
   * Says, for another thread to read, which call into the logic is in progress (see
   * callMarker.ts); set only where the operator runs user code.
   */
  callMarker: CallMarker | undefined;
  /** This subtask's index among the run's, as the call marker names it. */
  ordinal = 0;
  /**
   * Debug runs: a slice pauses after every item (see stepSlice), so that a step is one item of
   * the very slices a normal run takes.
   */
  stepping = false;
  private paused: PausedSlice | undefined;
  /** Debug runs: the item the last step took, and the channel it came on. */
  taken: { readonly channel: Channel; readonly item: ChannelItem } | undefined;

  constructor(
    readonly operator: PlannedOperator,
    readonly subtask: number,
    readonly jobDir: string,
    /** Feedback channels first: draining the loop before taking new input keeps it short. */
    readonly inputs: readonly Channel[],
    readonly emitter: Emitter,
    readonly state: KeyedState | undefined,
    readonly store: KvStore | undefined,
    /** Shared with the input channels, which count what they hold. */
    readonly inputCounter: InputCounter,
  ) {
    this.parallelism = operator.parallelism;
    this.label = `${operator.id}#${subtask}`;
    this.isSource = operator.operator.kind.startsWith('source.');
    this.feedbackInputs = inputs.filter((c) => c.edge.feedback).length;
    this.regularInputs = inputs.length - this.feedbackInputs;
    this.aligner = new BarrierAligner(inputs);
  }

  get checkpoints(): CheckpointStorage | undefined {
    return this.checkpointing?.storage;
  }

  runnable(): boolean {
    if (this.barrierDue !== undefined) return true;
    if (this.phase === 'finished') return false;
    if (this.isSource) return !this.sourceExhausted && this.emitter.canSend();
    if (this.inputCounter.queued === 0 || !this.emitter.canSend()) return false;
    return !this.aligner.blocking || this.aligner.hasReadableInput();
  }

  /**
   * The coordinator starts checkpoint `id`. Sources take it before their next record; so does
   * a subtask no barrier can reach any more (finished, or a loop head whose regular inputs
   * have ended). The others wait for the barrier on their inputs.
   */
  triggerCheckpoint(id: number): void {
    const reachable = this.phase === 'running' && !this.isSource && this.regularInputs > this.regularEnded;
    if (reachable) this.aligner.expected = id;
    else this.barrierDue = id;
  }

  /** The checkpoint this subtask takes at its next slice, where no barrier comes to it. */
  get snapshotDue(): number | undefined {
    return this.barrierDue;
  }

  /** An operator with no inputs at all (not a source) has nothing to wait for. */
  get idleFromStart(): boolean {
    return !this.isSource && this.inputs.length === 0;
  }

  stateSize(): StateSize | undefined {
    return this.state?.stateSize();
  }

  /** Sources stop producing; what they emitted still flows to the end. */
  requestStop(): void {
    this.stopRequested = true;
  }

  runSlice(budget: number): Promise<void> | undefined {
    if (this.barrierDue !== undefined) {
      const id = this.barrierDue;
      this.barrierDue = undefined;
      return this.takeSnapshot(id);
    }
    if (this.phase === 'finished') return undefined;
    const pending = this.isSource ? this.produceSlice(budget) : this.consumeSlice(budget);
    if (pending !== undefined) return pending.then(() => this.store?.maybeFlush());
    return this.store?.maybeFlush();
  }

  private produceSlice(budget: number): Promise<void> | undefined {
    if (this.stopRequested) return this.exhaust();
    let produced: number | Promise<number> = 0;
    this.callMarker?.enter(this.ordinal, this, 'produce', undefined);
    try {
      produced = this.logic.produce(budget);
    } catch (error) {
      throw this.failure(error);
    } finally {
      this.leaveCall(produced);
    }
    if (typeof produced === 'number') return this.afterProduce(produced);
    return this.settled(produced).then(
      (count) => this.afterProduce(count),
      (error) => {
        throw this.failure(error);
      },
    );
  }

  private afterProduce(count: number): Promise<void> | undefined {
    if (count < 0) return this.exhaust();
    this.recordsIn += count;
    return undefined;
  }

  private exhaust(): Promise<void> | undefined {
    this.sourceExhausted = true;
    return this.endInput();
  }

  private consumeSlice(budget: number, from = 0): Promise<void> | undefined {
    const inputs = this.inputs;
    let left = budget;
    for (let i = from; i < inputs.length && left > 0; i++) {
      const index =
        i < this.feedbackInputs
          ? i
          : this.feedbackInputs + ((i - this.feedbackInputs + this.rotation) % this.regularInputs);
      const channel = inputs[index]!;
      while (left > 0) {
        if (this.aligner.isBlocked(channel)) break;
        const item = channel.shift();
        if (item === undefined) break;
        left--;
        if (this.stepping) return this.stepItem(channel, item, i, left);
        if (item.type === 'barrier') {
          const pending = this.barrierArrived(channel, item.checkpointId);
          if (pending !== undefined) return pending;
          continue;
        }
        if (item.type === 'end') {
          channel.ended = true;
          const pending = this.channelEnded(channel);
          if (pending !== undefined) return pending;
          continue;
        }
        channel.delivered++;
        if (channel.edge.feedback) this.aligner.feedbackRecord(channel, item);
        const pending = this.deliver(channel, item);
        // An async function: the rest of the slice goes on once it has settled.
        if (pending !== undefined) return left > 0 ? pending.then(() => this.consumeSlice(left)) : pending;
        if (this.emitter.blocked && !this.emitter.canSend()) return undefined;
      }
    }
    this.rotation++;
    return undefined;
  }

  /**
   * Debug runs: one item of the slice, taken exactly as the loop above takes it, then the slice
   * pauses where the loop would go on (kept apart so the loop of a normal run stays as it is).
   */
  private stepItem(channel: Channel, item: ChannelItem, i: number, left: number): Promise<void> | undefined {
    this.taken = { channel, item };
    if (item.type === 'barrier') {
      const pending = this.barrierArrived(channel, item.checkpointId);
      if (pending !== undefined) return pending;
      this.paused = { from: i, left };
      return undefined;
    }
    if (item.type === 'end') {
      channel.ended = true;
      const pending = this.channelEnded(channel);
      if (pending !== undefined) return pending;
      this.paused = { from: i, left };
      return undefined;
    }
    channel.delivered++;
    if (channel.edge.feedback) this.aligner.feedbackRecord(channel, item);
    const pending = this.deliver(channel, item);
    // After an async function a normal slice goes on from its first input again.
    if (pending !== undefined)
      return pending.then(() => {
        if (left > 0) this.paused = { from: 0, left };
      });
    if (this.emitter.blocked && !this.emitter.canSend()) return undefined;
    this.paused = { from: i, left };
    return undefined;
  }

  /**
   * Debug runs: the next item of this subtask's slice (a new slice of `budget` items when none
   * is paused), or whatever else runSlice would do: a checkpoint due, or a source's whole slice.
   * `taken` says which item it was, if any; `sliceOpen` whether the slice goes on.
   */
  stepSlice(budget: number): Promise<void> | undefined {
    this.taken = undefined;
    const paused = this.paused;
    if (
      paused === undefined &&
      (this.barrierDue !== undefined || this.isSource || this.phase === 'finished')
    ) {
      return this.runSlice(budget);
    }
    this.paused = undefined;
    const pending =
      paused === undefined ? this.consumeSlice(budget) : this.consumeSlice(paused.left, paused.from);
    // A normal run flushes once per slice, at its end.
    const flush = () => (this.paused === undefined ? this.store?.maybeFlush() : undefined);
    return pending === undefined ? flush() : pending.then(flush);
  }

  get sliceOpen(): boolean {
    return this.paused !== undefined;
  }

  private deliver(channel: Channel, envelope: Envelope): Promise<void> | undefined {
    if (this.phase === 'finished') {
      throw new JobError(
        `internal: a record reached operator "${this.operator.id}" over edge "${channel.edge.id}" after its input had ended`,
        this.operator.id,
        this.subtask,
      );
    }
    this.recordsIn++;
    this.current = envelope;
    const lineage = this.emitter.lineage;
    lineage.timestamp = envelope.timestamp;
    lineage.source = envelope.source;
    lineage.position = envelope.position;
    this.state?.setKey(envelope.keyGroup, envelope.key);
    this.observer?.(this, channel, envelope);
    let pending: void | Promise<void> | undefined;
    this.callMarker?.enter(this.ordinal, this, 'process', envelope);
    try {
      pending = this.logic.process(envelope);
    } catch (error) {
      throw this.failure(error, envelope);
    } finally {
      this.leaveCall(pending);
    }
    if (pending === undefined) return undefined;
    return this.settled(pending).catch((error) => {
      throw this.failure(error, envelope);
    });
  }

  private barrierArrived(channel: Channel, checkpointId: number): Promise<void> | undefined {
    if (channel.edge.feedback) {
      this.feedbackDone(this.aligner.feedbackBarrier(channel, checkpointId));
      return undefined;
    }
    if (!this.aligner.regularBarrier(channel, checkpointId)) return undefined;
    return this.takeSnapshot(checkpointId);
  }

  private channelEnded(channel: Channel): Promise<void> | undefined {
    if (channel.edge.feedback) {
      this.feedbackDone(this.aligner.feedbackEnded(channel));
      return undefined;
    }
    this.regularEnded++;
    const aligned = this.aligner.regularEnded();
    if (aligned !== undefined) {
      const pending = this.takeSnapshot(aligned);
      const rest = this.afterRegularEnded();
      if (pending === undefined) return rest;
      return pending.then(() => rest);
    }
    return this.afterRegularEnded();
  }

  private afterRegularEnded(): Promise<void> | undefined {
    if (this.regularEnded < this.regularInputs) return undefined;
    if (this.operator.loopHead) {
      this.phase = 'awaitingLoop';
      return undefined;
    }
    return this.endInput();
  }

  /** Feedback logs of loop heads, resolved when the barrier has come back round. */
  private feedbackWaiters = new Map<number, (log: FeedbackLog) => void>();

  private feedbackDone(log: FeedbackLog | undefined): void {
    if (log === undefined) return;
    this.feedbackWaiters.get(log.checkpointId)?.(log);
    this.feedbackWaiters.delete(log.checkpointId);
  }

  /**
   * Snapshot at the barrier: the operator's own part and the state's synchronous part now,
   * then the barrier goes on downstream; files are written while records keep flowing. A
   * promise only when this subtask must wait before its next record (LevelDB taking a base).
   */
  private takeSnapshot(checkpointId: number): Promise<void> | undefined {
    const participation = this.checkpointing;
    if (participation === undefined) return undefined;
    const started = performance.now();
    const alignmentMs = this.aligner.alignmentMs(started);
    let operatorPart: ReturnType<OperatorLogic['snapshot']>;
    try {
      operatorPart = this.logic.snapshot(checkpointId);
    } catch (error) {
      throw this.failure(error);
    }
    const size = this.state?.stateSize() ?? { entries: 0, bytes: 0, keys: 0 };
    const statePart = participation.state?.snapshot(checkpointId, size);
    const loopHead = this.operator.loopHead && this.phase !== 'finished';
    this.aligner.release(checkpointId, loopHead);
    let feedback: Promise<FeedbackLog> | undefined;
    const log = this.aligner.log;
    if (log !== undefined) {
      // With every feedback input ended, nothing can come round: the log is complete already.
      if (log.waiting.size === 0) {
        this.aligner.log = undefined;
        feedback = Promise.resolve(log);
      } else {
        feedback = new Promise((resolve) => this.feedbackWaiters.set(checkpointId, resolve));
      }
    }
    if (this.phase !== 'finished') {
      for (const channel of this.emitter.allChannels) channel.push(barrier(checkpointId));
    }
    // The synchronous part ends when this subtask may take records again (after LevelDB has
    // written what a new base must hold).
    const syncEnded =
      statePart === undefined
        ? Promise.resolve(performance.now())
        : statePart.taken.then(() => performance.now());
    const ack = (async (): Promise<SubtaskAck> => {
      const asyncStarted = await syncEnded;
      const syncMs = asyncStarted - started;
      const [state, sinkPart, logged] = await Promise.all([
        statePart?.written,
        operatorPart.sinkPart,
        feedback,
      ]);
      let feedbackRef: SubtaskSnapshot['feedback'];
      if (logged !== undefined && logged.records.length > 0) {
        const writer = participation.storage.createDataFile(
          participation.storage.dataPath(this.operator.id, this.subtask, `feedback-${checkpointId}.jsonl`),
        );
        for (const e of logged.records) {
          const wait = writer.write([e.value, e.key ?? null, e.keyGroup, e.timestamp ?? null]);
          if (wait !== undefined) await wait;
        }
        feedbackRef = await writer.close();
      }
      const snapshot: SubtaskSnapshot = {
        operator: this.operator.id,
        subtask: this.subtask,
        ...(operatorPart.splits === undefined ? {} : { splits: operatorPart.splits }),
        ...(state === undefined ? {} : { state: state.handle }),
        ...(feedbackRef === undefined
          ? {}
          : { feedback: feedbackRef, feedbackRecords: logged!.records.length }),
        ...(sinkPart === undefined ? {} : { sinkPart }),
      };
      return {
        snapshot,
        persistedBytes: (state?.persistedBytes ?? 0) + (feedbackRef?.bytes ?? 0) + (sinkPart?.bytes ?? 0),
        fullBytes: size.bytes,
        syncMs,
        asyncMs: performance.now() - asyncStarted,
        alignmentMs,
        inFlightRecords: logged?.records.length ?? 0,
      };
    })();
    participation.acker.acknowledge(this, checkpointId, ack);
    return statePart?.taken;
  }

  /** Regular input is over: let the logic finish, then close the outputs. */
  endInput(): Promise<void> | undefined {
    const pending = this.tellInputEnded();
    if (pending !== undefined) return pending.then(() => this.closeOutputs());
    this.closeOutputs();
    return undefined;
  }

  /** Called by the scheduler on a quiet job: the loop's records are all delivered. */
  tellInputEnded(): Promise<void> | undefined {
    if (this.phase === 'awaitingLoop') this.phase = 'drainingLoop';
    this.current = undefined;
    let pending: void | Promise<void> | undefined;
    this.callMarker?.enter(this.ordinal, this, 'endInput', undefined);
    try {
      pending = this.logic.endInput();
    } catch (error) {
      throw this.failure(error);
    } finally {
      this.leaveCall(pending);
    }
    if (pending === undefined) return undefined;
    return this.settled(pending).catch((error) => {
      throw this.failure(error);
    });
  }

  closeOutputs(): void {
    this.phase = 'finished';
    for (const channel of this.emitter.allChannels) channel.push(END_OF_STREAM);
  }

  /**
   * After the job: a loop head finishes before the end-of-stream comes back round its feedback
   * edges, so those markers are still queued. Anything else left over would be a lost record.
   */
  takeFinalEndsOfStream(): void {
    for (const channel of this.inputs) {
      for (let item = channel.shift(); item !== undefined; item = channel.shift()) {
        if (item.type === 'record') {
          throw new JobError(`internal: a record was left on edge "${channel.edge.id}" when the job ended`);
        }
      }
    }
  }

  /** A loop head's snapshot is waiting for its barrier to come back round (that takes steps). */
  get awaitingFeedback(): boolean {
    return this.feedbackWaiters.size > 0;
  }

  /**
   * Time travel: whether progress() can be taken now: the logic can be put back in place, and
   * no checkpoint is being aligned, logged round a loop or written here.
   */
  get canSaveProgress(): boolean {
    return this.logic.progress !== undefined && this.aligner.quiet && this.feedbackWaiters.size === 0;
  }

  progress(): SubtaskProgress {
    return {
      phase: this.phase,
      recordsIn: this.recordsIn,
      current: this.current,
      regularEnded: this.regularEnded,
      rotation: this.rotation,
      sourceExhausted: this.sourceExhausted,
      stopRequested: this.stopRequested,
      barrierDue: this.barrierDue,
      expected: this.aligner.expected,
      paused: this.paused,
      emitter: this.emitter.progress(),
      logic: this.logic.progress!(),
      stateSize: this.state?.stateSize(),
    };
  }

  /**
   * Puts the subtask back as progress() found it. Its keyed state must be rolled back with it
   * (the debugger does that), and any checkpoint in flight abandoned first.
   */
  async restoreProgress(progress: SubtaskProgress): Promise<void> {
    this.phase = progress.phase;
    this.recordsIn = progress.recordsIn;
    this.current = progress.current;
    this.regularEnded = progress.regularEnded;
    this.rotation = progress.rotation;
    this.sourceExhausted = progress.sourceExhausted;
    this.stopRequested = progress.stopRequested;
    this.barrierDue = progress.barrierDue;
    this.aligner.reset();
    this.aligner.expected = progress.expected;
    this.paused = progress.paused;
    this.taken = undefined;
    this.emitter.restoreProgress(progress.emitter);
    if (progress.stateSize !== undefined) this.state?.resetSize(progress.stateSize);
    await this.logic.restoreProgress!(progress.logic);
  }

  /**
   * Gives up the checkpoint this subtask is taking part in (time travel goes back to before
   * it): alignment stops, and a feedback log waiting for its barrier to come back round is
   * closed with what it holds, so that the snapshot's files finish and can be waited for.
   */
  abandonCheckpoint(): void {
    this.barrierDue = undefined;
    const log = this.aligner.log;
    for (const [id, resolve] of this.feedbackWaiters) {
      resolve(log?.checkpointId === id ? log : { checkpointId: id, records: [], waiting: new Set() });
    }
    this.feedbackWaiters.clear();
    this.aligner.reset();
  }

  /** After a call into the logic returned (or threw): a promise it returned keeps the call open. */
  private leaveCall(result: unknown): void {
    const marker = this.callMarker;
    if (marker === undefined) return;
    if (result instanceof Promise) marker.awaiting();
    else marker.leave();
  }

  /** A call's promise: the call marker shows the call until it settles. */
  private settled<T>(pending: Promise<T>): Promise<T> {
    const marker = this.callMarker;
    if (marker === undefined) return pending;
    return pending.finally(() => marker.leave());
  }

  /** Turns anything thrown while this subtask worked into a message a user can act on. */
  failure(error: unknown, envelope?: Envelope, context?: string): JobError {
    if (error instanceof JobError && error.operatorId !== undefined) return error;
    const where = `operator "${this.operator.id}"${this.parallelism > 1 ? ` (subtask ${this.subtask} of ${this.parallelism})` : ''}`;
    const from = envelope?.source
      ? ` on the record from ${describeRecordSource(envelope.source, envelope.position)}`
      : '';
    let detail: string;
    if (error instanceof JobError) {
      detail = error.message;
    } else {
      // The sandbox words it as `operator "id": <what> at line N of its code: <why>`.
      const prefix = `operator "${this.operator.id}": `;
      const { message } = describeUserThrow(error, this.operator.id);
      detail = message.startsWith(prefix) ? message.slice(prefix.length) : message;
    }
    const why = context === undefined ? detail : `${context}: ${detail}`;
    return new JobError(`${where} failed${from}: ${why}`, this.operator.id, this.subtask);
  }
}
