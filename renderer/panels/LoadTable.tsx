// The Metrics panel's backpressure: per operator and subtask, where its time went over the last
// second, as the engine measured it (busy, backpressured, idle: Flink's task metrics of those
// names), each as a share and all three as one bar. Shown while the run goes; a debug run, whose
// pace is the user's steps, measures nothing and shows nothing here.

import { measured, sharesOf } from '../run/loadTint';
import { useRun } from '../run/runContext';
import { isActive } from '../run/runControls';

export function LoadTable() {
  const metrics = useRun((s) => s.metrics);
  const live = useRun((s) => isActive(s.status));
  if (metrics === undefined || !live) return null;
  const rows = metrics.operators
    .map((op) => ({
      operator: op.id,
      subtasks: op.subtasks.filter(measured).map((s) => ({ subtask: s.subtask, ...sharesOf(s) })),
    }))
    .filter((op) => op.subtasks.length > 0);
  if (rows.length === 0) return null;
  return (
    <section className="metrics-load" aria-label="Busy, backpressured and idle">
      <table className="run-table load-table" aria-label="Busy, backpressured and idle per subtask">
        <thead>
          <tr>
            <th scope="col">Operator</th>
            <th scope="col">Subtask</th>
            <th scope="col" title="Processing records, timers and checkpoints">
              Busy
            </th>
            <th
              scope="col"
              title="Had output ready (or, a source, was behind its schedule) but could not hand it on: held back by what comes after it"
            >
              Backpressured
            </th>
            <th scope="col" title="Nothing to do: no input, or a source ahead of its schedule">
              Idle
            </th>
            <th scope="col">Last second</th>
          </tr>
        </thead>
        <tbody>
          {rows.flatMap((op) =>
            op.subtasks.map((s, k) => (
              <tr key={`${op.operator}/${s.subtask}`} data-operator={op.operator} data-subtask={s.subtask}>
                {k === 0 && (
                  <th scope="rowgroup" rowSpan={op.subtasks.length}>
                    {op.operator}
                  </th>
                )}
                <td>{s.subtask}</td>
                <td className="load-number">{s.busy}%</td>
                <td className="load-number">{s.held}%</td>
                <td className="load-number">{s.idle}%</td>
                <td>
                  <span className="load-bar" aria-hidden="true">
                    <span className="load-busy" style={{ width: `${s.busy}%` }} />
                    <span className="load-held" style={{ width: `${s.held}%` }} />
                  </span>
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </section>
  );
}
