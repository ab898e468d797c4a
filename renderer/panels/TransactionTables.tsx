// The State panel's view of a transaction operator: each table's rows and bytes per subtask.
// The engine counts them per state on request (a state page asked with `sizes`: it reads the
// subtask's keys), as the State panel counts every keyed operator's keys (useStateCounts.ts).
import { tableSizes } from '../run/tableSizes';
import { formatBytes, formatCount } from '../run/units';
import type { SubtaskCounts } from '../run/useStateCounts';

export function TransactionTables({
  operator,
  tables,
  counts,
  error,
}: {
  operator: string;
  tables: readonly string[];
  /** The operator's per-state counts per subtask (useStateCounts), undefined until in. */
  counts: readonly SubtaskCounts[] | undefined;
  /** Why they could not be counted (said by the State panel above). */
  error: string | undefined;
}) {
  const sizes = counts === undefined ? undefined : tableSizes(tables, counts);
  return (
    <section className="state-tables" aria-label={`Tables of ${operator}`}>
      <h4>Tables</h4>
      {sizes === undefined ? (
        error === undefined && <p className="muted">Counting the rows of each table…</p>
      ) : (
        <table className="run-table state-table" aria-label={`Table sizes of ${operator}`}>
          <thead>
            <tr>
              <th scope="col">Table</th>
              <th scope="col">Subtask</th>
              <th scope="col">Rows</th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {sizes.rows.map((row) => (
              <tr key={`${row.table}\u0000${row.subtask}`}>
                <th scope="row">{row.table}</th>
                <td>{row.subtask}</td>
                <td className="state-number" data-rows={row.rows}>
                  {formatCount(row.rows)}
                </td>
                <td className="state-number" title={`${formatCount(row.bytes)} bytes`} data-bytes={row.bytes}>
                  {formatBytes(row.bytes)}
                </td>
              </tr>
            ))}
            {sizes.totals.map((total) => (
              <tr key={`${total.table}\u0000all`} className="state-total">
                <th scope="row">{total.table}</th>
                <td>all</td>
                <td className="state-number">{formatCount(total.rows)}</td>
                <td className="state-number">{formatBytes(total.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
