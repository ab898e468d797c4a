// What `pipewright run` shows while a job goes. While a big job opens (thousands of subtasks take
// seconds), how far that has come; then, on a terminal, the live table: records in and out per
// operator, rate, how busy and how held back (backpressured) it was over the last second, state,
// elapsed time, redrawn in place and cut to the terminal's height (a table taller than the screen
// cannot be redrawn in place). Off a terminal the opening is said in a few lines and no table is
// drawn. What the CLI says during a run goes through note(), above what is drawn, where no redraw
// covers it.
import { countText as count } from '../graph/countText.js';
import type { JobMetrics, OperatorMetrics, SubtaskMetrics } from '../metrics/jobMetrics.js';

const REDRAW_MS = 250;

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

/** What a job's opening is said as, `opened` of its `total` subtasks being open. */
export function openingLine(job: string, opened: number, total: number): string {
  return `opening job "${job}": ${count(opened)} of ${count(total)} subtasks`;
}

/** The lines of `lines` that fit `rows` rows (one kept free for the cursor), the rest counted. */
function fitted(lines: string[], rows: number | undefined): string[] {
  const room = rows !== undefined && rows > 3 ? rows - 1 : Number.POSITIVE_INFINITY;
  if (lines.length <= room) return lines;
  // The first two lines are the job's and the columns' headings; each other is an operator.
  return [...lines.slice(0, room - 1), `... and ${count(lines.length - room + 1)} more operators`];
}

export class ProgressDisplay {
  private timer: NodeJS.Timeout | undefined;
  private drawnLines = 0;
  private previous: JobMetrics | undefined;
  /** The opening's line while it is shown (on a terminal), until the table takes its place. */
  private opening: string | undefined;
  /** Off a terminal: the tenth of the job's subtasks the opening was last said at. */
  private openingSaid = -1;

  constructor(
    /** Undefined until the run's thread has sent its first sample. */
    private readonly sample: () => JobMetrics | undefined,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /**
   * `opened` of the job's `total` subtasks are open: on a terminal a line redrawn in place, else
   * a line each time the opening has gone past another tenth of them.
   */
  opened(job: string, opened: number, total: number): void {
    const line = openingLine(job, opened, total);
    if (this.out.isTTY) {
      this.opening = line;
      this.draw();
      return;
    }
    const tenth = Math.floor((opened * 10) / total);
    if (tenth <= this.openingSaid) return;
    this.openingSaid = tenth;
    this.out.write(`pipewright: ${line}\n`);
  }

  start(): void {
    if (!this.out.isTTY) return;
    // The table's first draw takes the opening's place.
    this.opening = undefined;
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
  }

  /**
   * Prints a line for good: in place of the table or the opening while live (redrawn below it),
   * else below.
   */
  note(line: string): void {
    if ((this.timer === undefined && this.opening === undefined) || this.drawnLines === 0) {
      this.out.write(`${line}\n`);
      return;
    }
    this.out.write(`\x1b[${this.drawnLines}F${line}\x1b[K\n\x1b[J`);
    this.drawnLines = 0;
    this.draw();
  }

  private draw(): void {
    const lines = this.opening !== undefined ? [this.opening] : this.table();
    if (lines === undefined) return;
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : '';
    // A line wider than the terminal would wrap, and moving up drawnLines would then land
    // inside the table instead of on its first line.
    const width = this.out.columns > 1 ? this.out.columns - 1 : Number.POSITIVE_INFINITY;
    this.out.write(`${up}${lines.map((l) => `${l.slice(0, width)}\x1b[K`).join('\n')}\n`);
    this.drawnLines = lines.length;
  }

  private table(): string[] | undefined {
    const metrics = this.sample();
    if (metrics === undefined) return undefined;
    const lines = formatTable(metrics, this.previous);
    this.previous = metrics;
    return fitted(lines, this.out.rows);
  }
}

export { count as formatCount };
