// Event time as the run panels show it: watermarks and timer times as UTC times of day (with
// the date when it is not today's), lags as durations, and per operator and subtask the
// watermark rows of the Metrics panel. Event times near 0 are a test's or a generator's
// counting, not dates, so they are shown as the milliseconds they are.
import type { KeyTimersView, RunMetricsEvent } from '../../engine/protocol/protocol.js';
import { formatCount, formatMs } from './units';

/** Below this (a year after the epoch) an event time reads better as a number of ms than as a date. */
const SMALL_TIME_MS = 365 * 86_400_000;

const two = (n: number) => String(n).padStart(2, '0');

/**
 * "12:00:05.250" (UTC; the milliseconds only when there are some), "2024-03-01 12:00:05" when
 * the day is not today's (UTC), "5,250 ms" for small times; "—" when there is none.
 */
export function formatEventTime(ms: number | undefined, now: number = Date.now()): string {
  if (ms === undefined || Number.isNaN(ms)) return '—';
  if (ms === Number.POSITIVE_INFINITY) return 'end of time';
  if (ms === Number.NEGATIVE_INFINITY) return 'before all time';
  if (Math.abs(ms) < SMALL_TIME_MS) return `${formatCount(ms)} ms`;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return `${formatCount(ms)} ms`;
  const millis = date.getUTCMilliseconds();
  const time = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}${
    millis === 0 ? '' : `.${String(millis).padStart(3, '0')}`
  }`;
  const day = date.toISOString().slice(0, 10);
  return day === new Date(now).toISOString().slice(0, 10) ? time : `${day} ${time}`;
}

/** The exact value behind a shown event time, for a tooltip: ISO-8601 and epoch ms. */
export function eventTimeTitle(ms: number): string {
  const date = new Date(ms);
  const iso = Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  return iso === undefined ? `${ms} ms since the epoch` : `${iso} (${ms} ms since the epoch)`;
}

/** A watermark's lag: "0 ms", "250 ms", "2.50 s", "3 min 05 s". */
export function formatLag(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 60_000) return formatMs(Math.max(0, ms));
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${two(Math.floor((ms % 60_000) / 1000))} s`;
  return `${Math.floor(minutes / 60)} h ${two(minutes % 60)} min`;
}

export type TimerDomainName = 'eventTime' | 'processingTime';

/** "event-time timer 12:00:10", as the state browser lists a key's timers. */
export function timerLine(domain: TimerDomainName, timestamp: number, now?: number): string {
  const what = domain === 'eventTime' ? 'event-time' : 'processing-time';
  return `${what} timer ${formatEventTime(timestamp, now)}`;
}

/** "owners/1": a subtask as the watermark memory names it. */
export const subtaskName = (operator: string, subtask: number) => `${operator}/${subtask}`;

/** The subtasks that have had a watermark in this run: once it has, its having none means its input ended. */
export function watermarkedSubtasks(seen: ReadonlySet<string>, event: RunMetricsEvent): ReadonlySet<string> {
  let next: Set<string> | undefined;
  for (const op of event.operators) {
    for (const s of op.subtasks) {
      const name = subtaskName(op.id, s.subtask);
      if (s.watermark === undefined || seen.has(name)) continue;
      next ??= new Set(seen);
      next.add(name);
    }
  }
  // The same set when nothing is new, so the panels do not draw again for it.
  return next ?? seen;
}

export interface SubtaskWatermark {
  readonly subtask: number;
  /** Epoch ms; undefined when there is none (see `ended`). */
  readonly watermark: number | undefined;
  readonly lagMs: number | undefined;
  /** It had a watermark and has none now: its input ended, the final watermark passed. */
  readonly ended: boolean;
}

export interface OperatorWatermarks {
  readonly operator: string;
  readonly subtasks: readonly SubtaskWatermark[];
}

/**
 * The Metrics panel's watermark rows: every operator with a subtask that has, or has had, a
 * watermark (none for a job without event time), its subtasks in order.
 */
export function watermarkRows(event: RunMetricsEvent, seen: ReadonlySet<string>): OperatorWatermarks[] {
  const rows: OperatorWatermarks[] = [];
  for (const op of event.operators) {
    const timed = op.subtasks.some(
      (s) => s.watermark !== undefined || seen.has(subtaskName(op.id, s.subtask)),
    );
    if (!timed) continue;
    const subtasks = [...op.subtasks]
      .sort((a, b) => a.subtask - b.subtask)
      .map((s) => ({
        subtask: s.subtask,
        watermark: s.watermark,
        lagMs: s.watermark === undefined ? undefined : s.watermarkLagMs,
        ended: s.watermark === undefined && seen.has(subtaskName(op.id, s.subtask)),
      }));
    rows.push({ operator: op.id, subtasks });
  }
  return rows;
}

/** What the state browser says under a key about its timers: a count, then one line each. */
export function keyTimerLines(view: KeyTimersView, now?: number): { count: string; lines: string[] } {
  const n = formatCount(view.count);
  const count = `${view.atLeast ? 'at least ' : ''}${n} timer${view.count === 1 ? '' : 's'}`;
  const lines = view.timers.map((t) => timerLine(t.domain, t.timestamp, now));
  const more = view.count - view.timers.length;
  if (more > 0) lines.push(`… and ${view.atLeast ? 'at least ' : ''}${formatCount(more)} more`);
  return { count, lines };
}
