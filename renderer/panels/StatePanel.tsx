// The State panel: per keyed operator and subtask, the state size, number of keys and timers as numbers
// and as bars, the key groups each subtask owns and a warning when one holds more than twice
// the mean; per state its keys and entries; a transaction operator's tables with their rows and
// bytes per subtask; beside it, the state browser. Sizes, entries and timers are refreshed by
// every run.metrics event (about once a second); keys are counted by reading the state
// (useStateCounts.ts), now and then. The last reading stays after the run ends.
import { useRun } from '../run/runContext';
import { type OperatorStateRows, stateRows, stateTotals } from '../run/stateSizes';
import { formatBytes, formatCount } from '../run/units';
import { useStateCounts } from '../run/useStateCounts';
import { useTransactionTables } from '../run/useTransactionTables';
import { StateBrowser } from './StateBrowser';
import { TransactionTables } from './TransactionTables';

function OperatorState({ rows, tables }: { rows: OperatorStateRows; tables: readonly string[] | undefined }) {
  const { counts, error } = useStateCounts(
    rows.operator,
    rows.subtasks.map((s) => s.subtask),
  );
  const keysOf = new Map(counts?.map((c) => [c.subtask, c.keys]));
  // Entries (a map's elements count one each) are shown as far as the engine reports them.
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
              <th scope="col" title="Keys holding state, each once whatever states it holds">
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
                <td className="state-number" data-keys={keysOf.get(s.subtask)}>
                  {keysOf.has(s.subtask) ? formatCount(keysOf.get(s.subtask)) : '…'}
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
      {error !== undefined && (
        <p className="error" role="alert">
          Could not count the keys of {rows.operator}: {error}
        </p>
      )}
      {counts?.some((c) => c.states.length > 0) && (
        <table className="run-table state-table" aria-label={`States of ${rows.operator}`}>
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Type</th>
              <th scope="col" title="Keys holding this state">
                Keys
              </th>
              <th scope="col" title="A value, or one element of a map or list">
                Entries
              </th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {stateTotals(counts).map((state) => (
              <tr key={`${state.state}\u0000${state.type}`}>
                <th scope="row">{state.state}</th>
                <td>{state.type}</td>
                <td className="state-number">{formatCount(state.keys)}</td>
                <td className="state-number" data-entries={state.entries}>
                  {formatCount(state.entries)}
                </td>
                <td className="state-number">{formatBytes(state.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tables !== undefined && (
        <TransactionTables operator={rows.operator} tables={tables} counts={counts} error={error} />
      )}
    </section>
  );
}

export function StatePanel() {
  const metrics = useRun((s) => s.metrics);
  const status = useRun((s) => s.status);
  const flink = useRun((s) => s.flink);
  const transactionTables = useTransactionTables();
  if (flink !== undefined) {
    // Flink counts no keys or entries per subtask, and its state is out of the browser's reach.
    return (
      <p className="run-empty">
        A run on Flink keeps its state in the cluster’s TaskManagers (RocksDB), which the designer cannot
        read: the Checkpoints tab shows each subtask’s share of every checkpoint, and the Metrics tab its
        records and load.
      </p>
    );
  }
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
