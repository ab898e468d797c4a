// A transaction as a debug step shows it and as record traces follow it. The leader subtask
// reports each transaction it ran (runtime/transactionReport.ts) inside the step that ran it;
// the report names every row with its value before and after, so the step's view carries a copy
// and its lineage reads and writes the rows' state cells (stateCells.ts), the same cells
// ctx.state's value state of the table would (a table is keyed value state named after it).
import type { StateAccess, TransactionRowView, TransactionView } from '../protocol/runProtocol.js';
import type { TransactionReport, TransactionRow } from '../runtime/transactionReport.js';
import { jsonCopy } from './jsonCopy.js';

function rowView(row: TransactionRow): TransactionRowView {
  return {
    table: row.table,
    key: row.key,
    subtask: row.subtask,
    ...(row.before === undefined ? {} : { before: jsonCopy(row.before) }),
    ...(row.after === undefined ? {} : { after: jsonCopy(row.after) }),
    read: row.read,
    written: row.written,
  };
}

/** A copy of the report: user code may change the record or a row's value in place later. */
export function transactionView(report: TransactionReport): TransactionView {
  return {
    order: report.order,
    record: jsonCopy(report.record),
    rows: report.rows.map(rowView),
    ...(report.aborted === undefined ? {} : { aborted: report.aborted }),
    emitted: report.emitted,
  };
}

/**
 * A transaction's rows as accesses to value state (stateCells.ts gives their cells), reads
 * first: it reads all its rows before it writes any. An aborted transaction wrote nothing,
 * whatever it set before aborting.
 */
export function transactionAccesses(report: TransactionReport): StateAccess[] {
  const access = (row: TransactionRow, op: StateAccess['op']): StateAccess => ({
    state: row.table,
    type: 'value',
    op,
    key: row.key,
  });
  const reads = report.rows.filter((row) => row.read).map((row) => access(row, 'read'));
  if (report.aborted !== undefined) return reads;
  return [...reads, ...report.rows.filter((row) => row.written).map((row) => access(row, 'write'))];
}

/** Whether a transaction touched the row a breakpoint names (`key` as ctx.key shows it). */
export function touchesRow(view: TransactionView, table: string, key: string): boolean {
  return view.rows.some(
    (row) => row.table === table && (typeof row.key === 'string' ? row.key === key : String(row.key) === key),
  );
}
