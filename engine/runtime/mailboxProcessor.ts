// A subtask's turn in its executor's loop (Flink's MailboxProcessor): the mail taken between two
// slices, and what the next slice does. The executor owns the loop itself, since it runs many
// subtasks on one thread; this says whether a subtask can run and runs one slice of it, giving
// work in a fixed order: the rest of a slice a call interrupted, a firing under way, a checkpoint
// due, timers the clock made due, then input. That order is what makes a run reproducible.
import type { KvStore } from '../state/kvStore.js';
import { after, type MaybePromise } from '../state/maybePromise.js';
import type { InputProcessor } from './inputProcessor.js';
import type { Subtask } from './subtask.js';
import type { SubtaskCheckpointCoordinator } from './subtaskCheckpointCoordinator.js';
import type { SubtaskTime } from './subtaskTime.js';
import type { Suspension } from './suspension.js';

export class MailboxProcessor {
  private readonly time: SubtaskTime;
  private readonly store: KvStore | undefined;
  /**
   * Bound once, as it ends every slice: routed edges tell what they skipped (their consumers
   * may be waiting on it), and state writes go to the store.
   */
  private readonly sliceOver = (): MaybePromise => {
    this.task.emitter.tellSkipped();
    return this.store?.maybeFlush();
  };

  constructor(
    private readonly task: Subtask,
    private readonly input: InputProcessor,
    private readonly checkpoints: SubtaskCheckpointCoordinator,
    private readonly suspension: Suspension,
  ) {
    this.time = task.time;
    this.store = task.store;
  }

  runnable(): boolean {
    if (this.suspension.active) return !this.suspension.waiting;
    if (this.checkpoints.due !== undefined) return true;
    const task = this.task;
    if (this.time.busy) return task.emitter.canSend();
    if (this.time.processingDue && task.phase !== 'finished') return true;
    if (task.phase === 'finished') return false;
    if (task.isSource) return !this.input.sourceExhausted && task.emitter.canSend();
    return task.gate.hasInput() && task.emitter.canSend();
  }

  /**
   * Something to do, whether or not the output has room for what it makes: runnable() but for
   * the output (the backpressure measure, loadMeter.ts). A source has something to do until it
   * is exhausted; whether its schedule says so now is the measure's to ask.
   */
  hasWork(): boolean {
    if (this.suspension.active) return !this.suspension.waiting;
    if (this.checkpoints.due !== undefined) return true;
    const task = this.task;
    if (this.time.busy) return true;
    if (task.phase === 'finished') return false;
    if (this.time.processingDue) return true;
    if (task.isSource) return !this.input.sourceExhausted;
    return task.gate.hasInput();
  }

  /** Waiting on a call that went asynchronous: the executor waits for this subtask's mail. */
  get waiting(): boolean {
    return this.suspension.waiting;
  }

  takeMail(): void {
    const mailbox = this.task.mailbox;
    for (let mail = mailbox.take(); mail !== undefined; mail = mailbox.take()) {
      switch (mail.type) {
        case 'triggerCheckpoint':
          this.checkpoints.trigger(mail.checkpointId);
          break;
        case 'checkpointComplete':
          try {
            this.task.logic.checkpointComplete?.(mail.checkpointId);
          } catch (error) {
            throw this.task.failure(error);
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

  runSlice(budget: number): MaybePromise {
    const rest = this.suspension.takeRest();
    if (rest !== undefined) return this.endSlice(rest());
    // A firing finishes before a snapshot: its watermark is taken and not yet passed on, which
    // no checkpoint could hold.
    const time = this.time;
    if (time.busy) return this.endSlice(this.input.fireTimers(budget));
    if (this.checkpoints.due !== undefined) return this.checkpoints.takeDue();
    const task = this.task;
    if (task.phase === 'finished') return undefined;
    if (time.processingDue) {
      const pending = time.processingTimeDue(Date.now());
      if (pending !== undefined || time.busy) return this.endSlice(pending ?? this.input.fireTimers(budget));
    }
    return this.endSlice(task.isSource ? this.input.produceSlice(budget) : this.input.consumeSlice(budget));
  }

  /** A slice's state writes go to the store once it is over. */
  private endSlice(pending: MaybePromise): MaybePromise {
    return after(pending, this.sliceOver);
  }

  /**
   * Debug runs: the next item of this subtask's slice (a new slice of `budget` items when none
   * is paused), or whatever else runSlice would do: a checkpoint due, or a source's whole slice.
   * `taken` says which item it was, if any; `sliceOpen` whether the slice goes on.
   */
  stepSlice(budget: number): MaybePromise {
    const input = this.input;
    input.taken = undefined;
    input.firedTimer = undefined;
    const paused = input.paused;
    const task = this.task;
    if (
      paused === undefined &&
      (this.checkpoints.due !== undefined ||
        task.isSource ||
        task.phase === 'finished' ||
        this.time.busy ||
        this.time.processingDue)
    ) {
      return this.runSlice(budget);
    }
    input.paused = undefined;
    const pending =
      paused === undefined ? input.consumeSlice(budget) : input.consumeSlice(paused.left, paused.from);
    // A normal run flushes once per slice, at its end.
    return after(pending, () => (input.paused === undefined ? this.store?.maybeFlush() : undefined));
  }

  get sliceOpen(): boolean {
    return this.input.paused !== undefined;
  }
}
