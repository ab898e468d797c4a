// The parallel executor's part on one thread: it runs this thread's subtasks as the
// deterministic executor runs a whole job (most downstream first, slices, mail between them),
// and exchanges batches with the other threads over its links. What it cannot see from here,
// the main thread decides: when checkpoints start (mail), and when the whole job is quiet, which
// is when loop heads learn that their input has ended (see quietDetector.ts): this thread
// reports its state each time it runs out of work, and follows the main thread's commands.
import { SLICE_RECORDS } from './deterministicExecutor.js';
import type { Executor } from './executor.js';
import { LoadMeter } from './loadMeter.js';
import { PauseGate } from './pauseGate.js';
import { RunnableScan } from './runnableScan.js';
import type { Subtask } from './subtask.js';
import type { ThreadLink } from './threadLink.js';

/** How often a busy thread gives its event loop a turn: the main thread's messages come then. */
const YIELD_EVERY_MS = 10;

/** This thread as the main thread's quiet detection sees it, each time it runs out of work. */
export interface PartStatus {
  /** Nothing to run, nothing queued to send, no call waiting on the world. */
  readonly quiet: boolean;
  /** Link messages sent and received, over all links (equal sums over all threads: none in flight). */
  readonly sent: number;
  readonly received: number;
  /** Loop heads whose regular input has ended, waiting for the job to be quiet. */
  readonly awaitingLoop: number;
  /** Loop heads told that their input ended, still taking what comes round. */
  readonly drainingLoop: number;
  readonly unfinished: number;
  /**
   * A call here waits on a promise nothing can settle any more: nothing but the run's own
   * message ports keeps this thread alive (no timer, no socket, no file in flight). At a quiet
   * moment of the whole job that is a promise that never settles.
   */
  readonly waitsOnNothing: boolean;
}

/** What keeps a thread alive that is not the run's own: a timer, a socket, a file read, a child. */
function worldCanWake(): boolean {
  return process.getActiveResourcesInfo().some((r) => r !== 'MessagePort' && r !== 'CloseReq');
}

/** What the main thread tells a part to do between two slices. */
export type PartCommand = 'tellLoopsEnded' | 'closeLoops' | 'end';

export class PartExecutor implements Executor {
  private readonly order: readonly Subtask[];
  /** The choice of the next subtask, which need not look at every subtask each slice. */
  private readonly scan: RunnableScan;
  halted = false;
  private stopping = false;
  private ending = false;
  /** While paused, the run waits on this at the next slice boundary. */
  private readonly pauseGate = new PauseGate();
  private mailPosted = false;
  private wake: (() => void) | undefined;
  private readonly commands: PartCommand[] = [];
  /** Waiting for something to arrive: what status() says. */
  private idle = false;
  private finishedTold = false;
  /** Where this thread's subtasks' time goes, once run() has begun. */
  load: LoadMeter | undefined;

  constructor(
    subtasks: readonly Subtask[],
    private readonly links: readonly ThreadLink[],
    private readonly report: {
      /** Ran out of work: loops, and calls that wait on what can never come, need to know. */
      readonly idle: (status: PartStatus) => void;
      /** Every subtask of this thread has finished. */
      readonly finished: () => void;
    },
  ) {
    this.order = [...subtasks].reverse();
    this.scan = new RunnableScan(this.order);
    const posted = () => {
      this.mailPosted = true;
      this.wakeUp();
    };
    for (const subtask of subtasks) subtask.mailbox.onMail = posted;
  }

  /** A link brought a message, or something else may have changed: an idle thread looks again. */
  wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  trigger(checkpointId: number): void {
    for (const subtask of this.order) subtask.mailbox.put({ type: 'triggerCheckpoint', checkpointId });
  }

  complete(checkpointId: number): void {
    for (const subtask of this.order) subtask.mailbox.put({ type: 'checkpointComplete', checkpointId });
  }

  command(command: PartCommand): void {
    this.commands.push(command);
    this.wakeUp();
  }

  halt(): void {
    this.halted = true;
    this.resume();
    this.wakeUp();
  }

  get stopRequested(): boolean {
    return this.stopping;
  }

  requestStop(): void {
    this.stopping = true;
    for (const subtask of this.order) if (subtask.isSource) subtask.requestStop();
    this.scan.reset();
    this.wakeUp();
  }

  /** Holds the run at the next slice boundary; resolves once it is held there. */
  pause(): Promise<void> {
    const held = this.pauseGate.close();
    // A thread asleep for want of work holds as soon as it wakes.
    this.wakeUp();
    return held;
  }

  resume(): void {
    this.pauseGate.open();
  }

  get paused(): boolean {
    return this.pauseGate.closed;
  }

  status(): PartStatus {
    let sent = 0;
    let received = 0;
    for (const link of this.links) {
      sent += link.sent;
      received += link.received;
    }
    let awaitingLoop = 0;
    let drainingLoop = 0;
    let unfinished = 0;
    for (const subtask of this.order) {
      if (subtask.phase === 'awaitingLoop') awaitingLoop++;
      else if (subtask.phase === 'drainingLoop') drainingLoop++;
      if (subtask.phase !== 'finished') unfinished++;
    }
    // A call waiting on the world will wake this thread, unless nothing is left that could.
    const waiting = this.idle && this.order.some((s) => s.waiting);
    const waitsOnNothing = waiting && !worldCanWake();
    const quiet = this.idle && (!waiting || waitsOnNothing);
    return { quiet, sent, received, awaitingLoop, drainingLoop, unfinished, waitsOnNothing };
  }

  /** Runs until halt() or the 'end' command (every subtask of every thread has finished). */
  async run(): Promise<void> {
    for (const subtask of this.order) {
      if (subtask.idleFromStart) await subtask.endInput();
    }
    const lastYield = performance.now();
    const load = new LoadMeter(this.order, lastYield);
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
    for (;;) {
      if (this.commands.length > 0) await this.runCommands();
      if (this.halted || this.ending) return;
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
      // What came from another thread may let any subtask here run.
      let received = false;
      for (const link of this.links) received = link.receive() || received;
      if (received) this.scan.reset();
      if (this.mailPosted) this.takeMail();
      let now = performance.now();
      if (now - lastYield >= YIELD_EVERY_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        lastYield = now;
        now = performance.now();
      }
      const next = this.scan.next();
      // One mark per slice, and one before the thread waits for work (see loadMeter.ts).
      load.mark(now, next);
      if (next !== undefined) {
        const pending = next.runSlice(SLICE_RECORDS);
        if (pending !== undefined) await pending;
        this.scan.ran(next);
        for (const link of this.links) link.flush(false, now);
        continue;
      }
      for (const link of this.links) link.flush(true, now);
      await this.waitForWork();
      this.scan.reset();
    }
  }

  private takeMail(): void {
    this.mailPosted = false;
    this.scan.reset();
    for (const subtask of this.order) if (subtask.mailbox.size > 0) subtask.takeMail();
  }

  private async runCommands(): Promise<void> {
    this.scan.reset();
    for (let command = this.commands.shift(); command !== undefined; command = this.commands.shift()) {
      switch (command) {
        case 'tellLoopsEnded':
          for (const subtask of this.order) {
            if (subtask.phase === 'awaitingLoop') await subtask.tellInputEnded();
          }
          break;
        case 'closeLoops':
          for (const subtask of this.order) if (subtask.phase === 'drainingLoop') subtask.closeOutputs();
          break;
        case 'end':
          this.ending = true;
          break;
      }
    }
  }

  /** Nothing to run here: tell the main thread (once per change), then sleep until something comes. */
  private async waitForWork(): Promise<void> {
    const woken = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    // Something may have come while this slice ran, or in the turn the loop gave its event loop
    // (a pause among them: its wakeUp() then found no one asleep): look before sleeping.
    let arrived = false;
    for (const link of this.links) arrived = link.receive() || arrived;
    if (arrived || this.mailPosted || this.commands.length > 0 || this.halted || this.pauseGate.closed) {
      this.wake = undefined;
      return;
    }
    this.idle = true;
    if (!this.finishedTold && this.order.every((s) => s.phase === 'finished')) {
      this.finishedTold = true;
      this.report.finished();
    }
    this.report.idle(this.status());
    await woken;
    this.idle = false;
  }
}
