// Barrier alignment at one subtask (Carbone et al., 2015). A barrier on a regular input blocks
// that input until the barrier has come on every regular input that has not ended; then the
// subtask snapshots. A loop head then logs what arrives on its feedback inputs until the
// barrier has come back round each of them: those records were in flight inside the loop at
// the snapshot, so they are part of the checkpoint. A loop has several heads when its operator
// runs in parallel: a barrier from another head can then come round before this head has taken
// its own snapshot, and that feedback input is blocked like a regular one until it has, since
// what follows the barrier belongs after the cut.
import type { Channel } from './channel.js';
import type { Envelope } from './envelope.js';

export interface FeedbackLog {
  readonly checkpointId: number;
  readonly records: Envelope[];
  /** Feedback channels whose barrier has not come back yet. */
  readonly waiting: Set<Channel>;
}

export class BarrierAligner {
  /** The checkpoint being aligned, if any. */
  aligning: number | undefined;
  /** A checkpoint started whose barrier has not come yet: an input that ends instead counts as aligned. */
  expected: number | undefined;
  alignmentStartedAt = 0;
  /** The last checkpoint this subtask took its snapshot of. */
  private released = 0;
  private readonly blocked = new Set<Channel>();
  log: FeedbackLog | undefined;

  constructor(private readonly inputs: readonly Channel[]) {}

  /** Nothing aligned, held back or logged (a checkpoint may be expected): state that is only data. */
  get quiet(): boolean {
    return this.aligning === undefined && this.log === undefined && this.blocked.size === 0;
  }

  /** Forgets the checkpoint in progress (debug runs going back to before it). */
  reset(): void {
    this.aligning = undefined;
    this.expected = undefined;
    this.blocked.clear();
    this.log = undefined;
  }

  /** Whether some input is held back now. */
  get blocking(): boolean {
    return this.blocked.size > 0;
  }

  isBlocked(channel: Channel): boolean {
    return this.blocked.has(channel);
  }

  /** Whether some input that may be read now holds an item. */
  hasReadableInput(): boolean {
    for (const channel of this.inputs) if (channel.size > 0 && !this.isBlocked(channel)) return true;
    return false;
  }

  /** A barrier arrived on a regular input; true when every regular input is aligned. */
  regularBarrier(channel: Channel, checkpointId: number): boolean {
    if (this.aligning === undefined) {
      this.aligning = checkpointId;
      this.alignmentStartedAt = performance.now();
    } else if (this.aligning !== checkpointId) {
      throw new Error(
        `barrier ${checkpointId} arrived while aligning ${this.aligning} on edge "${channel.edge.id}"`,
      );
    }
    this.blocked.add(channel);
    return this.aligned();
  }

  /**
   * A regular input ended. Returns the checkpoint whose alignment that completes: one in
   * progress, or one expected whose barrier can now never come (every input ended).
   */
  regularEnded(): number | undefined {
    const id = this.aligning ?? this.expected;
    return id !== undefined && this.aligned() ? id : undefined;
  }

  private aligned(): boolean {
    for (const channel of this.inputs) {
      if (!channel.edge.feedback && !channel.ended && !this.blocked.has(channel)) return false;
    }
    return true;
  }

  /** How long inputs have been held for the alignment in progress (0 when none was). */
  alignmentMs(now: number): number {
    return this.aligning === undefined ? 0 : now - this.alignmentStartedAt;
  }

  /** The snapshot is taken: unblock, and on a loop head start logging the feedback inputs. */
  release(checkpointId: number, loopHead: boolean): void {
    this.released = Math.max(this.released, checkpointId);
    this.aligning = undefined;
    this.expected = undefined;
    if (loopHead) {
      // Feedback inputs whose barrier came before the snapshot have nothing to log.
      const waiting = new Set(this.inputs.filter((c) => c.edge.feedback && !c.ended && !this.blocked.has(c)));
      this.log = { checkpointId, records: [], waiting };
    }
    this.blocked.clear();
  }

  /** A record on a feedback input: logged while its barrier has not come back. */
  feedbackRecord(channel: Channel, envelope: Envelope): void {
    if (this.log?.waiting.has(channel)) this.log.records.push(envelope);
  }

  /** A barrier on a feedback input; returns the finished log when it was the last awaited. */
  feedbackBarrier(channel: Channel, checkpointId: number): FeedbackLog | undefined {
    // Before this head's own snapshot: hold the input until it is taken. On several threads
    // another head's barrier may come round before this head has even been told of the
    // checkpoint, so a newer id than its last snapshot's counts as well.
    if (
      this.log === undefined &&
      ((this.aligning ?? this.expected) === checkpointId || checkpointId > this.released)
    ) {
      this.blocked.add(channel);
      return undefined;
    }
    return this.feedbackEnded(channel);
  }

  /** A feedback input ended (or its barrier came back); returns the finished log when it was the last. */
  feedbackEnded(channel: Channel): FeedbackLog | undefined {
    const log = this.log;
    if (log === undefined) return undefined;
    log.waiting.delete(channel);
    if (log.waiting.size > 0) return undefined;
    this.log = undefined;
    return log;
  }
}
