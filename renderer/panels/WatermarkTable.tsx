// The Metrics panel's event time: per operator and subtask its watermark (how far event time
// has got there) and its lag behind the newest record time it has taken. Only operators that
// have had a watermark are listed, so a job without event time shows nothing here.

import { eventTimeTitle, formatEventTime, formatLag, watermarkRows } from '../run/eventTime';
import { useRun } from '../run/runContext';

export function WatermarkTable() {
  const metrics = useRun((s) => s.metrics);
  const seen = useRun((s) => s.watermarked);
  if (metrics === undefined) return null;
  const rows = watermarkRows(metrics, seen);
  if (rows.length === 0) return null;
  const now = Date.now();
  return (
    <section className="metrics-watermarks" aria-label="Watermarks">
      <table className="run-table watermark-table" aria-label="Watermarks per subtask">
        <thead>
          <tr>
            <th scope="col">Operator</th>
            <th scope="col">Subtask</th>
            <th scope="col" title="Event time this subtask has reached, in UTC">
              Watermark (UTC)
            </th>
            <th scope="col" title="Newest record time taken minus the watermark">
              Lag
            </th>
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
                {s.watermark !== undefined ? (
                  <td
                    className="watermark-number"
                    title={eventTimeTitle(s.watermark)}
                    data-watermark={s.watermark}
                  >
                    {formatEventTime(s.watermark, now)}
                  </td>
                ) : (
                  <td
                    className="muted"
                    title={s.ended ? 'Its input ended: every timer and window has fired' : undefined}
                  >
                    {s.ended ? 'input ended' : 'none yet'}
                  </td>
                )}
                <td className="watermark-number" data-lag={s.lagMs}>
                  {formatLag(s.lagMs)}
                </td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </section>
  );
}
