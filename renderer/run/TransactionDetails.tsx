// The transactions a step ran, as the Debugger panel shows them: per transaction its outcome
// (committed, or "aborted: reason") and a small table of its rows: the row, the subtask that
// owns it, whether it was read or written, and its value before → after.
import type { TransactionView } from '../../engine/protocol/protocol.js';
import { inlineValue } from './stepFormat';
import { transactionOutcome, transactionRows } from './transactionFormat';

function Transaction({ operator, tx, label }: { operator: string; tx: TransactionView; label: string }) {
  return (
    <section className="run-transaction" aria-label={label}>
      <p>
        <span className={tx.aborted === undefined ? undefined : 'run-transaction-aborted'}>
          {transactionOutcome(tx)}
        </span>{' '}
        <span className="muted">
          (order {tx.order}) record <code>{inlineValue(tx.record)}</code>
        </span>
      </p>
      <table className="run-table" aria-label={`Rows of ${label.toLowerCase()}`}>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Subtask</th>
            <th scope="col">Access</th>
            <th scope="col">Before → after</th>
          </tr>
        </thead>
        <tbody>
          {transactionRows(operator, tx).map((row) => (
            <tr key={row.row}>
              <td>
                <code>{row.row}</code>
              </td>
              <td>{row.owner}</td>
              <td>{row.access}</td>
              <td>
                <code>{row.change}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function TransactionDetails({
  operator,
  transactions,
}: {
  operator: string;
  transactions: readonly TransactionView[];
}) {
  const several = transactions.length > 1;
  return (
    <>
      <h4>{several ? `Transactions (${transactions.length})` : 'Transaction'}</h4>
      {transactions.map((tx, k) => (
        <Transaction
          key={tx.order}
          operator={operator}
          tx={tx}
          label={several ? `Transaction ${k + 1}` : 'Transaction'}
        />
      ))}
    </>
  );
}
