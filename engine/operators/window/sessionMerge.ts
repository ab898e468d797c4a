// Session windows of one key merge as Flink's MergingWindowSet merges them: the windows, sorted
// by start, are swept once and every run of windows that intersect (touching counts) becomes
// the window that covers it (TimeWindow.mergeWindows). Pure.
import { cover, intersects, type TimeWindow } from './timeWindow.js';

/** A window that took the place of several. */
export interface Merge {
  readonly result: TimeWindow;
  /** The windows it covers (two or more), by start. */
  readonly merged: readonly TimeWindow[];
}

/** Every merge among `windows` (Flink's TimeWindow.mergeWindows); none when no two intersect. */
export function mergeWindows(windows: readonly TimeWindow[]): Merge[] {
  const sorted = [...windows].sort((a, b) => a.start - b.start || a.end - b.end);
  const merges: Merge[] = [];
  let current: { result: TimeWindow; merged: TimeWindow[] } | undefined;
  for (const window of sorted) {
    if (current !== undefined && intersects(current.result, window)) {
      current.result = cover(current.result, window);
      current.merged.push(window);
      continue;
    }
    if (current !== undefined && current.merged.length > 1) merges.push(current);
    current = { result: window, merged: [window] };
  }
  if (current !== undefined && current.merged.length > 1) merges.push(current);
  return merges;
}

/** What adding a record's window to a key's sessions comes to. */
export interface SessionAdd {
  /** The session the record is in now: its own window, or the merge that took it in. */
  readonly window: TimeWindow;
  /** The key's earlier sessions that `window` replaces (empty when the record's window stands alone). */
  readonly absorbed: readonly TimeWindow[];
  /** The key's sessions afterwards, by start. */
  readonly sessions: readonly TimeWindow[];
}

/**
 * Adds a new window to a key's sessions (which intersect no other): the sessions it touches
 * or overlaps, and the new window, become one.
 */
export function addSession(sessions: readonly TimeWindow[], added: TimeWindow): SessionAdd {
  const merge = mergeWindows([...sessions, added]).find((m) => m.merged.includes(added));
  const window = merge?.result ?? added;
  const absorbed = merge === undefined ? [] : merge.merged.filter((w) => w !== added);
  const kept = sessions.filter((w) => !absorbed.includes(w));
  const after = [...kept, window].sort((a, b) => a.start - b.start);
  return { window, absorbed, sessions: after };
}
