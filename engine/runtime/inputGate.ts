// The input side of a subtask (Flink's InputGate): which channel is read next, and barrier
// alignment. A slice reads the feedback channels first (draining a loop before taking new input
// keeps it short), then the regular ones from a rotating start, so a union is fair; each channel
// is read until it is empty or held back by an alignment. Watermarks come through in order with
// the records; the valve that merges them (watermarkValve.ts) sits with the timers they fire, in
// subtaskTime.ts.
import { BarrierAligner, type FeedbackLog } from './barrierAligner.js';
import type { Channel, InputCounter } from './channel.js';
import type { Envelope } from './envelope.js';

/** What a regular input's end or barrier completed. */
export interface AlignmentStep {
  /** A checkpoint whose barriers are now aligned: take the snapshot. */
  readonly aligned: number | undefined;
}

/** Where a gate stands between two steps of a debug run (time travel). */
export interface GateProgress {
  readonly regularEnded: number;
  readonly rotation: number;
  readonly expected: number | undefined;
}

export class InputGate {
  readonly feedbackInputs: number;
  readonly regularInputs: number;
  /** Regular inputs whose end of stream has been taken. */
  regularEnded = 0;
  private rotation = 0;
  private readonly aligner: BarrierAligner;

  constructor(
    /** Feedback channels first. */
    readonly inputs: readonly Channel[],
    /** Shared with the channels, which count what they hold: "has input" costs no scan. */
    readonly counter: InputCounter,
  ) {
    this.feedbackInputs = inputs.filter((c) => c.edge.feedback).length;
    this.regularInputs = inputs.length - this.feedbackInputs;
    this.aligner = new BarrierAligner(inputs);
  }

  get width(): number {
    return this.inputs.length;
  }

  /** Whether some item can be read now. */
  hasInput(): boolean {
    if (this.counter.queued === 0) return false;
    return !this.aligner.blocking || this.aligner.hasReadableInput();
  }

  /** The i-th channel a slice reads: feedback first, then the regular ones from the rotation. */
  channelAt(i: number): Channel {
    const feedback = this.feedbackInputs;
    return this.inputs[i < feedback ? i : feedback + ((i - feedback + this.rotation) % this.regularInputs)]!;
  }

  isBlocked(channel: Channel): boolean {
    return this.aligner.isBlocked(channel);
  }

  /** A slice went through every input: the next starts from the next regular one. */
  endSlice(): void {
    this.rotation++;
  }

  /** Some regular input can still bring a barrier. */
  get barrierCanCome(): boolean {
    return this.regularInputs > this.regularEnded;
  }

  get allRegularEnded(): boolean {
    return this.regularEnded >= this.regularInputs;
  }

  /** A checkpoint was started whose barrier is still to come on the regular inputs. */
  expect(checkpointId: number): void {
    this.aligner.expected = checkpointId;
  }

  /** A record was taken from `channel`: logged when it came round a loop after a snapshot. */
  recordTaken(channel: Channel, envelope: Envelope): void {
    channel.delivered++;
    if (channel.edge.feedback) this.aligner.feedbackRecord(channel, envelope);
  }

  /**
   * A barrier was taken from a regular input: the id of the checkpoint it aligns, if every
   * regular input now has it.
   */
  regularBarrier(channel: Channel, checkpointId: number): number | undefined {
    return this.aligner.regularBarrier(channel, checkpointId) ? checkpointId : undefined;
  }

  /** A barrier came round a feedback input: the loop's log, once complete. */
  feedbackBarrier(channel: Channel, checkpointId: number): FeedbackLog | undefined {
    return this.aligner.feedbackBarrier(channel, checkpointId);
  }

  /** A regular input ended: the checkpoint whose alignment that completes, if any. */
  regularEndTaken(channel: Channel): number | undefined {
    channel.ended = true;
    this.regularEnded++;
    return this.aligner.regularEnded();
  }

  /** A feedback input ended: the loop's log, once complete. */
  feedbackEndTaken(channel: Channel): FeedbackLog | undefined {
    channel.ended = true;
    return this.aligner.feedbackEnded(channel);
  }

  alignmentMs(now: number): number {
    return this.aligner.alignmentMs(now);
  }

  /**
   * The snapshot is taken: inputs are released; on a loop head, logging of the feedback inputs
   * starts. Returns the log: complete already when no feedback input can bring the barrier
   * back, otherwise still filling (undefined when this is no loop head).
   */
  release(checkpointId: number, loopHead: boolean): { log: FeedbackLog; complete: boolean } | undefined {
    this.aligner.release(checkpointId, loopHead);
    const log = this.aligner.log;
    if (log === undefined) return undefined;
    if (log.waiting.size > 0) return { log, complete: false };
    this.aligner.log = undefined;
    return { log, complete: true };
  }

  /** The log filling now, if any (time travel closes it with what it holds). */
  get openLog(): FeedbackLog | undefined {
    return this.aligner.log;
  }

  /** Nothing aligned, held back or logged. */
  get quiet(): boolean {
    return this.aligner.quiet;
  }

  /** Forgets the checkpoint in progress (debug runs going back to before it). */
  resetAlignment(): void {
    this.aligner.reset();
  }

  progress(): GateProgress {
    return { regularEnded: this.regularEnded, rotation: this.rotation, expected: this.aligner.expected };
  }

  restoreProgress(progress: GateProgress): void {
    this.regularEnded = progress.regularEnded;
    this.rotation = progress.rotation;
    this.aligner.reset();
    this.aligner.expected = progress.expected;
  }

  /**
   * After the job: a loop head finishes before the end-of-stream comes back round its feedback
   * edges, so those markers are still queued. Anything else left over would be a lost record.
   */
  leftoverRecord(): Channel | undefined {
    for (const channel of this.inputs) {
      for (let item = channel.shift(); item !== undefined; item = channel.shift()) {
        if (item.type === 'record') return channel;
      }
    }
    return undefined;
  }
}
