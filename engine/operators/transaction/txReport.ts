// What the debugger hears of a transaction its leader ran (runtime/transactionReport.ts): every
// row it named, as it stood before and after, who owns it, and whether it was read or written.
import type { SubtaskEnvironment } from '../../runtime/operatorLogic.js';
import type { TransactionReport } from '../../runtime/transactionReport.js';
import { copied, type RowValue, type TxOutcome } from './txContext.js';
import { type OrderKey, orderText } from './txOrder.js';
import type { TxRows } from './txRows.js';

/** A transaction as its leader ran it. */
export interface RanTransaction {
  readonly record: { readonly key: OrderKey; readonly envelope: { readonly value: unknown } };
  readonly rows: TxRows;
  /** The rows as they stood before it, by index. */
  readonly values: readonly (RowValue | undefined)[];
}

export function transactionReport(
  env: SubtaskEnvironment,
  ran: RanTransaction,
  outcome: TxOutcome,
  emitted: number,
): TransactionReport {
  return {
    operator: env.operator.id,
    subtask: env.subtask,
    order: orderText(ran.record.key),
    record: copied(ran.record.envelope.value),
    rows: ran.rows.rows.map((row, i) => {
      const before = ran.values[i];
      const written = outcome.aborted === undefined ? outcome.writes[i] : undefined;
      const after = written ?? before;
      return {
        table: row.table,
        key: row.key,
        subtask: row.owner,
        before: before?.exists ? copied(before.value) : undefined,
        after: after?.exists ? copied(after.value) : undefined,
        read: outcome.read[i] === true,
        written: written !== undefined,
      };
    }),
    aborted: outcome.aborted,
    emitted,
  };
}
