// What the run's subtasks wait for (a connector's server that does not answer), in words a user
// reads: one line per subtask, `operator "orders" (subtask 1 of 2): waiting for Kafka at
// localhost:9092 (...): retry 3 in 800 ms`. A change comes as a SubtaskWait from whichever thread
// runs the subtask, also while the job opens; the CLI prints it (WaitLines), the designer's run
// status shows it (engine/host/run/waitStatus.ts), and the metrics file has it as a subtask's `wait`.

/** One change of what a subtask's connector waits for, as it crosses threads (plain data). */
export interface SubtaskWait {
  readonly operatorId: string;
  readonly subtask: number;
  readonly parallelism: number;
  /** Absent: it waits no more. */
  readonly message?: string;
}

/** The subtask, as the lines name it (one based). */
export function waitLabel(wait: SubtaskWait): string {
  return `operator ${JSON.stringify(wait.operatorId)} (subtask ${wait.subtask + 1} of ${wait.parallelism})`;
}

/** Which subtask a change is about. */
export function waitKey(wait: SubtaskWait): string {
  return `${wait.operatorId}\u0000${wait.subtask}`;
}

/**
 * The CLI's lines from the changes as they come: a wait when it begins, what it says at most
 * every `repeatMs` while it lasts (its retries count up), and "resumed" when it ends.
 */
export class WaitLines {
  private readonly shown = new Map<string, { message: string; at: number }>();

  constructor(private readonly repeatMs = 2000) {}

  /** The line to print for this change, if any. */
  next(wait: SubtaskWait, now = Date.now()): string | undefined {
    const key = waitKey(wait);
    const before = this.shown.get(key);
    if (wait.message === undefined) {
      if (before === undefined) return undefined;
      this.shown.delete(key);
      return `${waitLabel(wait)}: resumed`;
    }
    if (before !== undefined && (wait.message === before.message || now - before.at < this.repeatMs)) {
      return undefined;
    }
    this.shown.set(key, { message: wait.message, at: now });
    return `${waitLabel(wait)}: ${wait.message}`;
  }
}
