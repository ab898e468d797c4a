// The deterministic scheduler. Everything runs on one thread; at each step the most downstream
// subtask that has input (and room for its output) gets a slice, and a source runs only when
// everything below it is drained. So the order of deliveries depends only on the job and its
// input, memory stays bounded by the channels' capacity, and a step in the debugger is exact.
import { JobError } from './jobError.js';
import type { Subtask } from './subtask.js';

/** Records a subtask takes per slice: small batches amortise the scheduling. */
export const SLICE_RECORDS = 256;

/** A run gives the event loop a turn this often, so signals, progress and metrics get through. */
const YIELD_EVERY_MS = 25;
/** While a checkpoint writes its files, more often: each of its steps needs a turn. */
const YIELD_EVERY_MS_CHECKPOINTING = 1;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Scheduler {
  /** Most downstream first. */
  private readonly order: readonly Subtask[];
  private stopping = false;
  /** Set by halt(): the run ends where it is, without draining. */
  halted = false;
  /** While paused, the run waits on this at the next slice boundary. */
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;

  constructor(
    subtasksInTopologicalOrder: readonly Subtask[],
    /**
     * Runs before every slice: the checkpoint coordinator starts a due checkpoint here, and
     * says whether one is being written.
     */
    private readonly beforeSlice?: () => boolean,
  ) {
    this.order = [...subtasksInTopologicalOrder].reverse();
  }

  /** Ends the run at the next slice boundary (after a final checkpoint). */
  halt(): void {
    this.halted = true;
  }

  /** Sources stop; the records already out still flow to the sinks. */
  requestStop(): void {
    this.stopping = true;
    for (const subtask of this.order) if (subtask.isSource) subtask.requestStop();
  }

  get stopRequested(): boolean {
    return this.stopping;
  }

  /** Holds the run at the next slice boundary: no subtask runs and no checkpoint starts until resume(). */
  pause(): void {
    this.gate ??= new Promise<void>((resolve) => {
      this.openGate = resolve;
    });
  }

  resume(): void {
    this.openGate?.();
    this.gate = undefined;
    this.openGate = undefined;
  }

  get paused(): boolean {
    return this.gate !== undefined;
  }

  async run(): Promise<void> {
    for (const subtask of this.order) {
      if (subtask.idleFromStart) await subtask.endInput();
    }
    let lastYield = performance.now();
    const beforeSlice = this.beforeSlice;
    for (;;) {
      if (this.halted) return;
      // One property read per slice while running: the gate costs nothing measurable.
      if (this.gate !== undefined) {
        await this.gate;
        lastYield = performance.now();
        continue;
      }
      const checkpointing = beforeSlice?.() ?? false;
      const now = performance.now();
      if (now - lastYield >= (checkpointing ? YIELD_EVERY_MS_CHECKPOINTING : YIELD_EVERY_MS)) {
        await yieldToEventLoop();
        lastYield = now;
      }
      const next = this.nextRunnable();
      if (next !== undefined) {
        const pending = next.runSlice(SLICE_RECORDS);
        if (pending !== undefined) await pending;
        continue;
      }
      if (this.order.every((s) => s.phase === 'finished')) return;
      if (!(await this.advanceLoops())) {
        const stuck = this.order.filter((s) => s.phase !== 'finished').map((s) => s.label);
        throw new JobError(`internal: the job stalled with ${stuck.join(', ')} unfinished`);
      }
    }
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
