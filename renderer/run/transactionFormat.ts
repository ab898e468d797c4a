// A transaction step's rows as text: the Debugger panel shows exactly what these return, so a
// step shown again after stepping back reads the same.
import type { TransactionRowView, TransactionView } from '../../engine/protocol/protocol.js';
import { inlineValue, keyText, subtaskName } from './stepFormat';

/** "accounts/a7": how a row is named, in the table and in a row breakpoint. */
export function rowName(row: Pick<TransactionRowView, 'table' | 'key'>): string {
  return `${row.table}/${keyText(row.key)}`;
}

export function rowAccess(row: TransactionRowView): string {
  if (row.read && row.written) return 'read, written';
  return row.written ? 'written' : row.read ? 'read' : 'named only';
}

const NONE = '(none)';

/**
 * "before → after" for a row written, its value for a row only read. A row absent before reads
 * "(none)"; one absent after a write was deleted. An aborted transaction applied no write: its
 * row keeps its value.
 */
export function rowChange(row: TransactionRowView, aborted: boolean): string {
  const before = 'before' in row ? inlineValue(row.before) : NONE;
  if (!row.written || aborted) return before;
  const after = 'after' in row ? inlineValue(row.after) : '(deleted)';
  return `${before} → ${after}`;
}

export interface TransactionRowLine {
  readonly row: string;
  readonly owner: string;
  readonly access: string;
  readonly change: string;
}

export function transactionRows(operator: string, tx: TransactionView): TransactionRowLine[] {
  const aborted = tx.aborted !== undefined;
  return tx.rows.map((row) => ({
    row: rowName(row),
    owner: subtaskName(operator, row.subtask),
    access: rowAccess(row),
    change: rowChange(row, aborted),
  }));
}

/** "committed, emitted 1 record" or "aborted: a7 has 3, cannot send 5". */
export function transactionOutcome(tx: TransactionView): string {
  if (tx.aborted !== undefined) return `aborted: ${tx.aborted}`;
  return `committed, emitted ${tx.emitted} record${tx.emitted === 1 ? '' : 's'}`;
}
