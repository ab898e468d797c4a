// The deterministic executor. Everything runs on one thread; at each step the most downstream
// subtask that has input (and room for its output) gets a slice, and a source runs only when
// everything below it is drained. So the order of deliveries depends only on the job and its
// input, memory stays bounded by the channels' capacity, and a step in the debugger is exact.
// Mail is taken between slices, in a fixed order too. The one thing whose timing it does not
// decide is a call that waits on the world (see asyncCalls.ts): that subtask steps aside until
// its mail comes, and in a debug run even that is waited for in place.

import { JobError } from '../graph/jobError.js';
import type { Channel } from './channel.js';
import type { ChannelItem } from './envelope.js';
import type { CheckpointParticipants, Executor } from './executor.js';
import { LoadMeter } from './loadMeter.js';
import { PauseGate } from './pauseGate.js';
import { RunnableScan } from './runnableScan.js';
import type { Subtask } from './subtask.js';
import type { FiredTimer } from './timers.js';

/** Records a subtask takes per slice: small batches amortise the scheduling. */
export const SLICE_RECORDS = 256;
/**
 * Records a source makes per slice in a debug run: one, so that the most-downstream-first rule
 * takes each record through the whole graph before the source reads the next (a step follows a
 * record, instead of showing a whole slice of the source first).
 */
export const DEBUG_SOURCE_RECORDS = 1;

/** A run gives the event loop a turn this often, so signals, progress and metrics get through. */
const YIELD_EVERY_MS = 25;
/** While a checkpoint writes its files, more often: each of its steps needs a turn. */
const YIELD_EVERY_MS_CHECKPOINTING = 1;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One unit of a run's work, as step() did it (debug runs). */
export type ScheduledUnit =
  /** One item of a slice: a record, a barrier or an end-of-stream taken from `channel`. */
  | {
      readonly kind: 'item';
      readonly subtask: Subtask;
      readonly channel: Channel;
      readonly item: ChannelItem;
    }
  /** A source's slice (one record in a debug run): what it made went out through its emitter. */
  | { readonly kind: 'produce'; readonly subtask: Subtask }
  /** A timer of a firing fired (its emits went out through the emitter, nothing downstream ran). */
  | { readonly kind: 'timer'; readonly subtask: Subtask; readonly timer: FiredTimer }
  /** A checkpoint taken where no barrier comes: at a source, or where no input is left to bring one. */
  | { readonly kind: 'snapshot'; readonly subtask: Subtask; readonly checkpointId: number }
  /** A source ran out, or a loop head was told that its regular input has ended. */
  | { readonly kind: 'end'; readonly subtask: Subtask };

/** Where step() stands between two units (time travel in debug runs). */
export interface ExecutorProgress {
  readonly started: boolean;
  readonly sliceOwner: Subtask | undefined;
  readonly loopEnds: readonly Subtask[];
}

export class DeterministicExecutor implements Executor {
  /** Most downstream first. */
  private readonly order: readonly Subtask[];
  /** run()'s choice of the next subtask, which need not look at every subtask each slice. */
  private readonly scan: RunnableScan;
  private stopping = false;
  /** Set by halt(): the run ends where it is, without draining. */
  halted = false;
  /** step(): whether the run has begun, whose slice is paused, which loop heads are still to be told. */
  private started = false;
  private sliceOwner: Subtask | undefined;
  private loopEnds: Subtask[] = [];
  /** While paused, the run waits on this at the next slice boundary. */
  private readonly pauseGate = new PauseGate();
  /** Some subtask has mail to take. */
  private mailPosted = false;
  /** While every subtask that could run waits on the world: wakes the run when mail comes. */
  private wake: (() => void) | undefined;
  /**
   * Runs before every slice: the checkpoint coordinator starts a due checkpoint here, and
   * says whether one is being written.
   */
  beforeSlice: (() => boolean) | undefined;
  /** Where the subtasks' time goes, once run() has begun (step() is not measured: a user drives it). */
  load: LoadMeter | undefined;

  /**
   * `sourceRecordsPerStep`: what a source makes in one step(). A debug run's DEBUG_SOURCE_RECORDS
   * follows each record through the job; SLICE_RECORDS makes step() take exactly run()'s slices,
   * in run()'s order, so a test can stop a full-speed run at a chosen slice.
   */
  constructor(
    private readonly subtasks: readonly Subtask[],
    private readonly sourceRecordsPerStep = DEBUG_SOURCE_RECORDS,
  ) {
    this.order = [...subtasks].reverse();
    this.scan = new RunnableScan(this.order);
    const posted = () => {
      this.mailPosted = true;
      this.wake?.();
    };
    for (const subtask of subtasks) subtask.mailbox.onMail = posted;
    this.participants = {
      count: subtasks.length,
      allFinished: () => subtasks.every((s) => s.phase === 'finished'),
      trigger: (checkpointId) => {
        for (const subtask of subtasks) subtask.mailbox.put({ type: 'triggerCheckpoint', checkpointId });
      },
      complete: (checkpointId) => {
        for (const subtask of subtasks) subtask.mailbox.put({ type: 'checkpointComplete', checkpointId });
      },
    };
  }

  /** The coordinator reaches the subtasks by mail, taken between two slices. */
  readonly participants: CheckpointParticipants;

  private takeMail(): void {
    this.mailPosted = false;
    this.scan.reset();
    for (const subtask of this.subtasks) if (subtask.mailbox.size > 0) subtask.takeMail();
  }

  /** Nothing can run but some subtask waits on the world: sleep until mail comes (or a while). */
  private async waitForMail(): Promise<void> {
    if (this.mailPosted) return;
    await new Promise<void>((resolve) => {
      // Unref'd: it only lets a due checkpoint start. A call that can never settle (nothing
      // left that could wake it) must leave the event loop empty, which is how a run on a
      // worker thread learns of it.
      const timer = setTimeout(resolve, YIELD_EVERY_MS);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  /** Ends the run at the next slice boundary (after a final checkpoint). */
  halt(): void {
    this.halted = true;
    this.wake?.();
  }

  /** Sources stop; the records already out still flow to the sinks. */
  requestStop(): void {
    this.stopping = true;
    for (const subtask of this.order) if (subtask.isSource) subtask.requestStop();
    this.scan.reset();
  }

  get stopRequested(): boolean {
    return this.stopping;
  }

  /**
   * Holds the run at the next slice boundary: no subtask runs and no checkpoint starts until
   * resume(). Resolves once it is held there (or has ended).
   */
  pause(): Promise<void> {
    const held = this.pauseGate.close();
    this.wake?.();
    return held;
  }

  resume(): void {
    this.pauseGate.open();
  }

  get paused(): boolean {
    return this.pauseGate.closed;
  }

  async run(): Promise<void> {
    this.scan.reset();
    for (const subtask of this.order) {
      if (subtask.idleFromStart) await subtask.endInput();
    }
    const lastYield = performance.now();
    const load = new LoadMeter(this.subtasks, lastYield);
    this.load = load;
    try {
      await this.loop(load, lastYield);
    } finally {
      this.pauseGate.end();
      load.end(performance.now());
    }
  }

  private async loop(load: LoadMeter, started: number): Promise<void> {
    let lastYield = started;
    const beforeSlice = this.beforeSlice;
    for (;;) {
      if (this.halted) return;
      // One getter call per slice while running: the gate costs nothing measurable.
      const paused = this.pauseGate.waiting;
      if (paused !== undefined) {
        load.settle(performance.now());
        this.pauseGate.reached();
        await paused;
        lastYield = performance.now();
        this.scan.reset();
        load.skip(lastYield);
        continue;
      }
      const checkpointing = beforeSlice?.() ?? false;
      if (this.mailPosted) this.takeMail();
      let now = performance.now();
      if (now - lastYield >= (checkpointing ? YIELD_EVERY_MS_CHECKPOINTING : YIELD_EVERY_MS)) {
        await yieldToEventLoop();
        lastYield = now;
        now = performance.now();
      }
      const next = this.scan.next();
      // One mark per slice (and per wait): the measure costs a pass over the subtasks, not a record.
      load.mark(now, next);
      if (next !== undefined) {
        const pending = next.runSlice(SLICE_RECORDS);
        if (pending !== undefined) await pending;
        this.scan.ran(next);
        continue;
      }
      this.scan.reset();
      if (this.order.every((s) => s.phase === 'finished')) return;
      if (this.order.some((s) => s.waiting)) {
        await this.waitForMail();
        continue;
      }
      if (!(await this.advanceLoops())) {
        const stuck = this.order.filter((s) => s.phase !== 'finished').map((s) => s.label);
        throw new JobError(`internal: the job stalled with ${stuck.join(', ')} unfinished`);
      }
    }
  }

  /**
   * Once every subtask has finished (run() has returned, or step() found nothing left): takes
   * the mail and runs what it makes runnable, in run()'s order, until nothing is. That is the
   * snapshots of the end's checkpoint (CheckpointCoordinator.takeFinal), taken where no barrier
   * comes, and then the news that it completed.
   */
  async runFinished(): Promise<void> {
    for (;;) {
      if (this.mailPosted) this.takeMail();
      const next = this.nextRunnable();
      if (next === undefined) return;
      const pending = next.runSlice(SLICE_RECORDS);
      if (pending !== undefined) await pending;
    }
  }

  /**
   * Debug runs: does the next unit of the work run() does, and says what it was. A slice of a
   * non-source is taken item by item (each subtask pauses after every item), as run() takes it;
   * a source makes sourceRecordsPerStep (DEBUG_SOURCE_RECORDS) per slice, so everything
   * downstream of a record runs before the next one is read. That is the one difference from run(): where an operator reads
   * from several channels (upstream parallelism, a union, a loop), records of different channels
   * may interleave otherwise than in a full-speed run; each channel's order is its upstream
   * subtask's. Undefined once every subtask has finished.
   */
  async step(): Promise<ScheduledUnit | undefined> {
    if (!this.started) {
      this.started = true;
      for (const subtask of this.order) {
        if (subtask.idleFromStart) await subtask.endInput();
      }
    }
    for (;;) {
      const owner = this.sliceOwner;
      if (owner !== undefined) {
        await owner.stepSlice(SLICE_RECORDS);
        if (!owner.sliceOpen) this.sliceOwner = undefined;
        const taken = owner.taken;
        if (taken !== undefined) return { kind: 'item', subtask: owner, ...taken };
        continue;
      }
      // run() tells every waiting loop head in one go, with nothing run in between.
      const told = this.loopEnds.shift();
      if (told !== undefined) {
        await told.tellInputEnded();
        return { kind: 'end', subtask: told };
      }
      this.beforeSlice?.();
      if (this.mailPosted) this.takeMail();
      const next = this.nextRunnable();
      if (next === undefined) {
        if (this.order.every((s) => s.phase === 'finished')) return undefined;
        const draining = this.order.filter((s) => s.phase === 'drainingLoop');
        if (draining.length > 0) {
          for (const subtask of draining) subtask.closeOutputs();
          continue;
        }
        this.loopEnds = this.order.filter((s) => s.phase === 'awaitingLoop');
        if (this.loopEnds.length === 0) {
          const stuck = this.order.filter((s) => s.phase !== 'finished').map((s) => s.label);
          throw new JobError(`internal: the job stalled with ${stuck.join(', ')} unfinished`);
        }
        continue;
      }
      const checkpointId = next.snapshotDue;
      await next.stepSlice(next.isSource ? this.sourceRecordsPerStep : SLICE_RECORDS);
      // A firing goes before a snapshot due: the step was that timer, and the snapshot is still due.
      const timer = next.firedTimer;
      if (timer !== undefined) return { kind: 'timer', subtask: next, timer };
      if (checkpointId !== undefined) return { kind: 'snapshot', subtask: next, checkpointId };
      if (next.isSource) {
        return next.phase === 'finished'
          ? { kind: 'end', subtask: next }
          : { kind: 'produce', subtask: next };
      }
      if (next.sliceOpen) this.sliceOwner = next;
      const taken = next.taken;
      if (taken !== undefined) return { kind: 'item', subtask: next, ...taken };
    }
  }

  progress(): ExecutorProgress {
    return { started: this.started, sliceOwner: this.sliceOwner, loopEnds: [...this.loopEnds] };
  }

  restoreProgress(progress: ExecutorProgress): void {
    this.started = progress.started;
    this.sliceOwner = progress.sliceOwner;
    this.loopEnds = [...progress.loopEnds];
  }

  private nextRunnable(): Subtask | undefined {
    for (const subtask of this.order) if (subtask.runnable()) return subtask;
    return undefined;
  }

  /**
   * Nothing can run. Loop heads whose regular inputs have ended wait for this moment: no record
   * is left anywhere, so none can come round the loop unless ending input makes one. First they
   * are told their input ended; once the job is quiet again they close their outputs.
   */
  private async advanceLoops(): Promise<boolean> {
    const draining = this.order.filter((s) => s.phase === 'drainingLoop');
    if (draining.length > 0) {
      for (const subtask of draining) subtask.closeOutputs();
      return true;
    }
    const awaiting = this.order.filter((s) => s.phase === 'awaitingLoop');
    for (const subtask of awaiting) await subtask.tellInputEnded();
    return awaiting.length > 0;
  }
}
