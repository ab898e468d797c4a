// How long a test waits on a child process: by the work the child does, not by the clock. A
// wall-clock limit is missed as soon as something else loads the machine (CI, a benchmark, a
// second test run), although the child is doing exactly what it should, only slower. So a child
// gets a budget of CPU time (user + system, all its threads, read from /proc/PID/stat): what its
// work costs, nearly the same on a busy machine as on an idle one. A child that goes a long time
// without using any CPU at all is stuck waiting (a busy machine still gives a runnable process a
// turn every few milliseconds), and is stopped too. Where /proc is missing (not Linux), the
// budget is a wall-clock limit of four times the CPU budget.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** How often the watch reads the child's CPU time. */
const EVERY_MS = 250;
/** USER_HZ: the unit of /proc's times, 100 on every Linux in use. */
const TICKS_PER_SECOND = 100;

export interface WorkBudget {
  /** The CPU time the child may use, all its threads together. */
  readonly cpuMs: number;
  /** How long it may go without using any CPU time. */
  readonly idleMs?: number;
}

const DEFAULT_IDLE_MS = 120_000;

/** The CPU time a process has used so far, in ms; undefined when it cannot be read. */
export function cpuMsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Watches a child against its budget; kills it (SIGKILL) when it goes over, saying why. */
export class ChildWatch {
  private timer: NodeJS.Timeout | undefined;
  private lastCpuMs = 0;
  private lastWorkAt = Date.now();
  private readonly startedAt = Date.now();
  /** Why the child was killed, once it was. */
  exceeded: string | undefined;

  constructor(
    private readonly child: ChildProcess,
    private budget: WorkBudget,
  ) {
    this.timer = setInterval(() => this.check(), EVERY_MS);
    this.timer.unref();
    child.once('exit', () => this.stop());
  }

  /** Gives the child another budget (from now on, counted from its start). */
  setBudget(budget: WorkBudget): void {
    this.budget = budget;
  }

  /** The CPU time the child has used (the last reading once it has exited). */
  cpuMs(): number {
    const now = cpuMsOf(this.child.pid);
    if (now !== undefined) this.lastCpuMs = Math.max(this.lastCpuMs, now);
    return this.lastCpuMs;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const before = this.lastCpuMs;
    const now = cpuMsOf(this.child.pid);
    let why: string | undefined;
    if (now === undefined) {
      const wallMs = 4 * this.budget.cpuMs;
      if (Date.now() - this.startedAt > wallMs) why = `did not finish within ${wallMs} ms`;
    } else {
      this.lastCpuMs = Math.max(before, now);
      if (this.lastCpuMs > before) this.lastWorkAt = Date.now();
      const idleMs = this.budget.idleMs ?? DEFAULT_IDLE_MS;
      if (this.lastCpuMs > this.budget.cpuMs) why = `used more than ${this.budget.cpuMs} ms of CPU time`;
      else if (Date.now() - this.lastWorkAt > idleMs) why = `used no CPU time for ${idleMs} ms (stuck)`;
    }
    if (why !== undefined && this.exceeded === undefined) {
      this.exceeded = why;
      this.child.kill('SIGKILL');
      this.stop();
    }
  }
}

/** The CPU time this process has used so far (all its threads: a parallel run's workers too), in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Waits for `work` done in this process (a run of either executor) with a budget of work, as a
 * ChildWatch gives a child: it fails when this process uses more than `cpuMs` of CPU time from
 * now on, all threads together, or next to none (the watch's own ticks: under 1% of a core) for
 * `idleMs` (stuck). A test file runs its tests one at a time, so what this process uses
 * meanwhile is the work's.
 */
export async function withinWork<T>(
  work: Promise<T>,
  budget: WorkBudget,
  what: string,
  /** Where the work stands, for the failure's message (e.g. the run's metrics). */
  state?: () => string,
): Promise<T> {
  const startMs = ownCpuMs();
  let lastCpuMs = startMs;
  let lastWorkAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const watch = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      const now = ownCpuMs();
      if (now - lastCpuMs > 0.01 * EVERY_MS) lastWorkAt = Date.now();
      lastCpuMs = now;
      const idleMs = budget.idleMs ?? DEFAULT_IDLE_MS;
      let why: string | undefined;
      if (now - startMs > budget.cpuMs) why = `used more than ${budget.cpuMs} ms of CPU time`;
      else if (Date.now() - lastWorkAt > idleMs) why = `used no CPU time for ${idleMs} ms (stuck)`;
      if (why === undefined) return;
      let where = '';
      try {
        where = state === undefined ? '' : `\n${state()}`;
      } catch (error) {
        where = `\n(its state could not be read: ${String(error)})`;
      }
      reject(new Error(`${what} ${why}${where}`));
    }, EVERY_MS);
  });
  try {
    return await Promise.race([work, watch]);
  } finally {
    clearInterval(timer);
  }
}
