// What the run's subtasks wait for (metrics' `wait`), in words a user reads: one line per subtask,
// `operator "orders" (subtask 1 of 2): waiting for Kafka at localhost:9092 (...): retry 3 in 800 ms`.
// The CLI prints each change (and "resumed" when a wait ends); the designer's run status shows
// what is waited for now.

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

/**
 * From sample to sample: the waits that began, what a wait says at most every `repeatMs` while it
 * lasts (its retries count up), and the waits that ended ("resumed").
 */
export class WaitChanges {
  private readonly shown = new Map<string, { wait: string; at: number }>();

  constructor(private readonly repeatMs = 2000) {}

  next(sample: WaitSample, now = Date.now()): string[] {
    const lines: string[] = [];
    for (const [key, s] of subtasksOf(sample)) {
      const before = this.shown.get(key);
      if (s.wait !== undefined) {
        if (before === undefined || (s.wait !== before.wait && now - before.at >= this.repeatMs)) {
          this.shown.set(key, { wait: s.wait, at: now });
          lines.push(`${s.label}: ${s.wait}`);
        }
      } else if (before !== undefined) {
        this.shown.delete(key);
        lines.push(`${s.label}: resumed`);
      }
    }
    return lines;
  }
}
