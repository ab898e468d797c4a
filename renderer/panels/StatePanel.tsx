// The State panel: per keyed operator and subtask, the state size, number of keys and timers as numbers
// and as bars, the key groups each subtask owns and a warning when one holds more than twice
// the mean; a transaction operator's tables with their rows and bytes per subtask; beside it,
// the state browser. Refreshed by every run.metrics event (about once a
// second), and the last reading stays after the run ends.
import { useRun } from '../run/runContext';
import { type OperatorStateRows, stateRows } from '../run/stateSizes';
import { formatBytes, formatCount } from '../run/units';
import { useTransactionTables } from '../run/useTransactionTables';
import { StateBrowser } from './StateBrowser';
import { TransactionTables } from './TransactionTables';

function OperatorState({ rows, tables }: { rows: OperatorStateRows; tables: readonly string[] | undefined }) {
  // Keys and entries (a map's elements count one each) are shown as far as the engine reports them.
  const keys = rows.subtasks.some((s) => s.keys !== undefined);
  const entries = rows.subtasks.some((s) => s.entries !== undefined);
  const timers = rows.subtasks.some((s) => s.timers !== undefined);
  return (
    <section className="state-operator" aria-label={`State of ${rows.operator}`}>
      <h3>
        {rows.operator} <span className="muted">— {formatBytes(rows.totalBytes)} in all</span>
      </h3>
      {rows.skew !== undefined && (
        <p className="run-warning">
          <span aria-hidden="true">⚠ </span>
          {rows.operator}: {rows.skew}
        </p>
      )}
      <table className="run-table state-table" aria-label={`State sizes of ${rows.operator}`}>
        <thead>
          <tr>
            <th scope="col">Subtask</th>
            <th scope="col">State size</th>
            {keys && (
              <th scope="col" title="Keys holding state, once per state they hold">
                Keys
              </th>
            )}
            {entries && (
              <th scope="col" title="A value, or one element of a map or list">
                Entries
              </th>
            )}
            {timers && (
              <th scope="col" title="Event-time and processing-time timers waiting to fire">
                Timers
              </th>
            )}
            <th scope="col">Key groups</th>
            <th scope="col" className="state-bar-col">
              Size
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.subtasks.map((s) => (
            <tr key={s.subtask} className={s.skewed ? 'state-skewed' : undefined}>
              <th scope="row">{s.subtask}</th>
              <td className="state-number" title={`${formatCount(s.bytes)} bytes`} data-bytes={s.bytes}>
                {formatBytes(s.bytes)}
              </td>
              {keys && (
                <td className="state-number" data-keys={s.keys}>
                  {formatCount(s.keys)}
                </td>
              )}
              {entries && <td className="state-number">{formatCount(s.entries)}</td>}
              {timers && (
                <td className="state-number" data-timers={s.timers}>
                  {formatCount(s.timers)}
                </td>
              )}
              <td>
                {s.keyGroups[0]}–{s.keyGroups[1]}
              </td>
              <td className="state-bar-col">
                <div
                  className="state-bar"
                  role="img"
                  aria-label={`subtask ${s.subtask}: ${Math.round(s.share * 100)}% of the largest`}
                >
                  <div className="state-bar-fill" style={{ width: `${(s.share * 100).toFixed(1)}%` }} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tables !== undefined && (
        <TransactionTables
          operator={rows.operator}
          tables={tables}
          subtasks={rows.subtasks.map((s) => s.subtask)}
        />
      )}
    </section>
  );
}

export function StatePanel() {
  const metrics = useRun((s) => s.metrics);
  const status = useRun((s) => s.status);
  const transactionTables = useTransactionTables();
  if (metrics === undefined) {
    return (
      <p className="run-empty">
        {status === 'idle'
          ? 'State sizes per operator and subtask appear here while the job runs.'
          : 'Waiting for the first measurement of the run…'}
      </p>
    );
  }
  const { keyed, stateless } = stateRows(metrics);
  return (
    <div className="state-panel">
      <div className="state-sizes">
        {keyed.length === 0 ? (
          <p className="run-empty">No operator of this job keeps keyed state.</p>
        ) : (
          keyed.map((rows) => (
            <OperatorState key={rows.operator} rows={rows} tables={transactionTables.get(rows.operator)} />
          ))
        )}
        {stateless.length > 0 && <p className="muted">Without keyed state: {stateless.join(', ')}.</p>}
      </div>
      <StateBrowser
        operators={keyed.map((k) => ({ id: k.operator, subtasks: k.subtasks.map((s) => s.subtask) }))}
      />
    </div>
  );
}
