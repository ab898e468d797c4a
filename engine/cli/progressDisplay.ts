// The live table `pipewright run` draws on a terminal: records in and out per operator, rate,
// how busy and how held back (backpressured) it was over the last second, state, elapsed time. Redrawn in place; nothing is drawn when stderr is not a terminal. What
// the CLI says during a run goes through note(), above the table, where no redraw covers it.
import type { JobMetrics, OperatorMetrics, SubtaskMetrics } from '../metrics/jobMetrics.js';

const REDRAW_MS = 250;

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * An operator's share of the last second, as its subtasks' figure `of` says it: the highest of
 * them (its busiest subtask, its most held-back one), as the designer tints it; blank before any
 * is measured, and in debug runs.
 */
function share(op: OperatorMetrics, of: (s: SubtaskMetrics) => number | undefined): string {
  let most: number | undefined;
  for (const s of op.subtasks) {
    const ms = of(s);
    if (ms !== undefined && (most === undefined || ms > most)) most = ms;
  }
  return most === undefined ? '' : `${Math.round(most / 10)}%`;
}

export function formatTable(metrics: JobMetrics, previous: JobMetrics | undefined): string[] {
  const seconds =
    previous === undefined ? metrics.elapsedMs / 1000 : (metrics.elapsedMs - previous.elapsedMs) / 1000;
  const rows = [['operator', 'kind', 'in', 'out', 'in/s', 'busy', 'backpressured', 'state']];
  metrics.operators.forEach((op, i) => {
    const before = previous?.operators[i]?.recordsIn ?? 0;
    const rate = seconds > 0 ? Math.round((op.recordsIn - before) / seconds) : 0;
    rows.push([
      `${op.id} ×${op.parallelism}`,
      op.kind,
      count(op.recordsIn),
      count(op.recordsOut),
      count(rate),
      share(op, (s) => s.busyTimeMsPerSecond),
      share(op, (s) => s.backPressuredTimeMsPerSecond),
      op.stateBytes === undefined ? '' : `${bytes(op.stateBytes)} / ${count(op.stateEntries ?? 0)} entries`,
    ]);
  });
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, c) => (c >= 2 && c <= 6 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  '),
  );
  return [`job "${metrics.job}"  ${(metrics.elapsedMs / 1000).toFixed(1)} s`, ...lines];
}

export class ProgressDisplay {
  private timer: NodeJS.Timeout | undefined;
  private drawnLines = 0;
  private previous: JobMetrics | undefined;

  constructor(
    /** Undefined until the run's thread has sent its first sample. */
    private readonly sample: () => JobMetrics | undefined,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  start(): void {
    if (!this.out.isTTY) return;
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
  }

  /** Prints a line for good: in place of the table while it is live (redrawn below it), else below. */
  note(line: string): void {
    if (this.timer === undefined || this.drawnLines === 0) {
      this.out.write(`${line}\n`);
      return;
    }
    this.out.write(`\x1b[${this.drawnLines}F${line}\x1b[K\n\x1b[J`);
    this.drawnLines = 0;
    this.draw();
  }

  private draw(): void {
    const metrics = this.sample();
    if (metrics === undefined) return;
    const lines = formatTable(metrics, this.previous);
    this.previous = metrics;
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : '';
    // A line wider than the terminal would wrap, and moving up drawnLines would then land
    // inside the table instead of on its first line.
    const width = this.out.columns > 1 ? this.out.columns - 1 : Number.POSITIVE_INFINITY;
    this.out.write(`${up}${lines.map((l) => `${l.slice(0, width)}\x1b[K`).join('\n')}\n`);
    this.drawnLines = lines.length;
  }
}

export { count as formatCount };
