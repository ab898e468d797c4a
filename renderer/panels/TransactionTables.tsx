// The State panel's view of a transaction operator: each table's rows and bytes per subtask.
// The engine counts them per state on request (a state page asked with `sizes`: it reads the
// subtask's keys), so they are asked for again as the run moves on (every 5 s of a live run,
// at every debugger step), one request per subtask.
import { useEffect, useRef, useState } from 'react';
import { useRun, useRunController } from '../run/runContext';
import { isActive } from '../run/runControls';
import { type TableSizes, tableSizes } from '../run/tableSizes';
import { formatBytes, formatCount } from '../run/units';

const LIVE_COUNT_EVERY_MS = 5000;

export function TransactionTables({
  operator,
  tables,
  subtasks,
}: {
  operator: string;
  tables: readonly string[];
  subtasks: readonly number[];
}) {
  const controller = useRunController();
  const runId = useRun((s) => s.runId);
  // Counting reads every key of the subtask: while a run goes, every 5 s of it, not every
  // metrics event (once a second), so a table of 100k rows costs little of the engine's time.
  const liveTick = useRun((s) =>
    isActive(s.status) ? Math.floor((s.metrics?.elapsedMs ?? 0) / LIVE_COUNT_EVERY_MS) : undefined,
  );
  const step = useRun((s) => s.step);
  const [sizes, setSizes] = useState<TableSizes | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const request = useRef(0);
  const subtaskList = subtasks.join(',');

  // biome-ignore lint/correctness/useExhaustiveDependencies: liveTick and step are reasons to count again
  useEffect(() => {
    if (runId === undefined) return;
    const id = ++request.current;
    const list = subtaskList === '' ? [] : subtaskList.split(',').map(Number);
    Promise.all(
      list.map((subtask) =>
        controller
          .statePage({ operator, subtask, limit: 1, sizes: true })
          .then((page) => ({ subtask, states: page.states ?? [] })),
      ),
    ).then(
      (states) => {
        if (id !== request.current) return;
        setSizes(tableSizes(tables, states));
        setError(undefined);
      },
      (e: unknown) => {
        if (id !== request.current) return;
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  }, [controller, runId, operator, tables.join('\0'), subtaskList, liveTick, step]);

  return (
    <section className="state-tables" aria-label={`Tables of ${operator}`}>
      <h4>Tables</h4>
      {error !== undefined && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
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
