// A transaction operator's tables in the State panel: per table, its rows and bytes on each
// subtask. A table is keyed value state named after it, so the engine's per-state sizes of each
// subtask (a state page asked with `sizes`) are the tables'; a table named in the job but not
// written yet shows as empty.
import type { StateSizeView } from '../../engine/protocol/protocol.js';

export interface SubtaskStates {
  readonly subtask: number;
  readonly states: readonly StateSizeView[];
}

export interface TableSizeRow {
  readonly table: string;
  readonly subtask: number;
  readonly rows: number;
  readonly bytes: number;
}

export interface TableSizes {
  readonly rows: readonly TableSizeRow[];
  /** Per table, its rows and bytes over all subtasks. */
  readonly totals: readonly { readonly table: string; readonly rows: number; readonly bytes: number }[];
}

export function tableSizes(named: readonly string[], subtasks: readonly SubtaskStates[]): TableSizes {
  const tables = new Set(named);
  for (const s of subtasks) for (const state of s.states) if (state.type === 'value') tables.add(state.state);
  const ordered = [...tables].sort();
  const sorted = [...subtasks].sort((a, b) => a.subtask - b.subtask);
  const rows: TableSizeRow[] = [];
  for (const table of ordered) {
    for (const s of sorted) {
      const size = s.states.find((state) => state.type === 'value' && state.state === table);
      rows.push({ table, subtask: s.subtask, rows: size?.keys ?? 0, bytes: size?.bytes ?? 0 });
    }
  }
  const totals = ordered.map((table) => {
    const of = rows.filter((r) => r.table === table);
    return {
      table,
      rows: of.reduce((sum, r) => sum + r.rows, 0),
      bytes: of.reduce((sum, r) => sum + r.bytes, 0),
    };
  });
  return { rows, totals };
}
