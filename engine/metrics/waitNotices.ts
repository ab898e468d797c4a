// What the run's subtasks wait for (metrics' `wait`), in words a user reads: one line per subtask,
// `operator "orders" (subtask 1 of 2): waiting for Kafka at localhost:9092 (...): retry 3 in 800 ms`.
// The CLI prints each change as it comes (and "resumed" when a wait ends); the designer's run
// status shows what the metrics samples say is waited for now.

/** The part of a metrics sample this reads: the CLI's JobMetrics and the designer's live metrics both fit. */
export interface WaitSample {
  readonly operators: readonly {
    readonly id: string;
    /** Absent in the designer's metrics: the subtasks listed are all of them. */
    readonly parallelism?: number;
    readonly subtasks: readonly { readonly subtask: number; readonly wait?: string }[];
  }[];
}

interface SubtaskName {
  readonly label: string;
  readonly wait: string | undefined;
}

function subtasksOf(sample: WaitSample): Map<string, SubtaskName> {
  const named = new Map<string, SubtaskName>();
  for (const op of sample.operators) {
    const parallelism = op.parallelism ?? op.subtasks.length;
    for (const s of op.subtasks) {
      named.set(`${op.id}\u0000${s.subtask}`, {
        label: `operator ${JSON.stringify(op.id)} (subtask ${s.subtask + 1} of ${parallelism})`,
        wait: s.wait,
      });
    }
  }
  return named;
}

/** What the subtasks wait for now, a line each, in plan order. */
export function waitLines(sample: WaitSample): string[] {
  return [...subtasksOf(sample).values()].flatMap((s) =>
    s.wait === undefined ? [] : [`${s.label}: ${s.wait}`],
  );
}

/** One line for a status: the first wait, and how many more there are. */
export function waitSummary(sample: WaitSample): string | undefined {
  const lines = waitLines(sample);
  if (lines.length === 0) return undefined;
  return lines.length === 1 ? lines[0] : `${lines[0]} (and ${lines.length - 1} more waiting)`;
}

/** One change of what a subtask's connector waits for, as it crosses threads (plain data). */
export interface SubtaskWait {
  readonly operatorId: string;
  readonly subtask: number;
  readonly parallelism: number;
  /** Absent: it waits no more. */
  readonly message?: string;
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
    const key = `${wait.operatorId}\u0000${wait.subtask}`;
    const label = `operator ${JSON.stringify(wait.operatorId)} (subtask ${wait.subtask + 1} of ${wait.parallelism})`;
    const before = this.shown.get(key);
    if (wait.message === undefined) {
      if (before === undefined) return undefined;
      this.shown.delete(key);
      return `${label}: resumed`;
    }
    if (before !== undefined && (wait.message === before.message || now - before.at < this.repeatMs)) {
      return undefined;
    }
    this.shown.set(key, { message: wait.message, at: now });
    return `${label}: ${wait.message}`;
  }
}
