// The State panel's numbers: per keyed operator, each subtask's state size, keys and key-group
// range, its timers, its share of the operator's largest subtask (the bar), and which subtasks are skewed.
import type { RunMetricsEvent, StateSizeView, SubtaskLive } from '../../engine/protocol/protocol.js';
import { skewedIndexes, skewMessage } from './skew';

export interface SubtaskStateRow {
  readonly subtask: number;
  readonly bytes: number;
  readonly keys: number | undefined;
  readonly entries: number | undefined;
  /** Timers the subtask holds, where the operator uses them (event and processing time). */
  readonly timers: number | undefined;
  readonly keyGroups: readonly [number, number];
  /** 0..1 of the operator's largest subtask. */
  readonly share: number;
  readonly skewed: boolean;
}

export interface OperatorStateRows {
  readonly operator: string;
  readonly totalBytes: number;
  readonly subtasks: readonly SubtaskStateRow[];
  readonly skew: string | undefined;
}

/** Whether a subtask reports keyed state (sizes, keys or timers). */
export function hasState(s: SubtaskLive): boolean {
  return (
    s.stateBytes !== undefined ||
    s.stateKeys !== undefined ||
    s.stateEntries !== undefined ||
    s.timers !== undefined
  );
}

/** Operators that keep keyed state, in the order the event lists them; the rest by id. */
export function stateRows(metrics: RunMetricsEvent): {
  keyed: OperatorStateRows[];
  stateless: string[];
} {
  const keyed: OperatorStateRows[] = [];
  const stateless: string[] = [];
  for (const op of metrics.operators) {
    if (!op.subtasks.some(hasState)) {
      stateless.push(op.id);
      continue;
    }
    const subtasks = [...op.subtasks].sort((a, b) => a.subtask - b.subtask);
    const bytes = subtasks.map((s) => s.stateBytes ?? 0);
    const max = Math.max(...bytes);
    const skewed = skewedIndexes(bytes);
    keyed.push({
      operator: op.id,
      totalBytes: bytes.reduce((a, b) => a + b, 0),
      subtasks: subtasks.map((s, k) => ({
        subtask: s.subtask,
        bytes: bytes[k]!,
        keys: s.stateKeys,
        entries: s.stateEntries,
        timers: s.timers,
        keyGroups: s.keyGroups,
        share: max > 0 ? bytes[k]! / max : 0,
        skewed: skewed.includes(k),
      })),
      skew: skewMessage(skewed.map((k) => subtasks[k]!.subtask)),
    });
  }
  return { keyed, stateless };
}

/** Per state (name and type), its keys, entries and bytes over all of an operator's subtasks, by name. */
export function stateTotals(
  subtasks: readonly { readonly states: readonly StateSizeView[] }[],
): StateSizeView[] {
  const totals = new Map<
    string,
    { state: string; type: StateSizeView['type']; keys: number; entries: number; bytes: number }
  >();
  for (const s of subtasks) {
    for (const state of s.states) {
      const id = `${state.state}\0${state.type}`;
      const total = totals.get(id) ?? { state: state.state, type: state.type, keys: 0, entries: 0, bytes: 0 };
      total.keys += state.keys;
      total.entries += state.entries;
      total.bytes += state.bytes;
      totals.set(id, total);
    }
  }
  return [...totals.values()].sort((a, b) =>
    a.state < b.state ? -1 : a.state > b.state ? 1 : a.type < b.type ? -1 : 1,
  );
}
