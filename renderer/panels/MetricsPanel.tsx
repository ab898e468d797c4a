// The Metrics panel: records in and out per second of each operator over the last minute, one
// small chart each, from the run's metrics events, and per subtask where its time went (busy,
// backpressured, idle: LoadTable). Backpressure shows on the canvas too: each operator tinted by
// its busiest subtask, each edge by how much its producer is held back (loadTint.ts). Once the
// run is over its last rate is no rate any more: the captions say what went through in all, and
// the charts stay as history.

import { lazy, Suspense } from 'react';
import { busyColour, heldColour, LOAD_LEVELS } from '../run/loadTint';
import { useRun } from '../run/runContext';
import { isActive } from '../run/runControls';
import { formatCount, formatRate } from '../run/units';
import { LoadTable } from './LoadTable';
import { WatermarkTable } from './WatermarkTable';

// uPlot loads with the first chart, not with the app.
const RateChart = lazy(() => import('../run/RateChart').then((m) => ({ default: m.RateChart })));

/** Charts are canvases: past this many, only the busiest operators get one. */
const MAX_CHARTS = 24;

export function MetricsPanel() {
  const metrics = useRun((s) => s.metrics);
  const series = useRun((s) => s.series);
  const version = useRun((s) => s.seriesVersion);
  const status = useRun((s) => s.status);
  const live = isActive(status);
  const ids = metrics?.operators.map((op) => op.id).filter((id) => series.latest(id) !== undefined) ?? [];
  if (ids.length === 0) {
    return (
      <div className="metrics-panel">
        <p className="run-empty">
          {status === 'idle'
            ? 'Records per second per operator appear here while the job runs, and how busy, backpressured and idle each subtask is; on the canvas operators take the colour of how busy they are, and edges of how much they hold back what feeds them. With event time, each subtask’s watermark.'
            : live
              ? 'Waiting for the first two measurements of the run…'
              : 'The run ended before its rates could be measured.'}
        </p>
        <LoadTable />
        <WatermarkTable />
      </div>
    );
  }
  const throughput = (id: string) => {
    const r = series.latest(id)!;
    return r.inPerSec + r.outPerSec;
  };
  const busiest = new Set([...ids].sort((a, b) => throughput(b) - throughput(a)).slice(0, MAX_CHARTS));
  // In the order of the job, so the charts do not move about as rates change.
  const shown = ids.filter((id) => busiest.has(id));
  return (
    <div className="metrics-panel">
      <div className="metrics-legend">
        <span className="metrics-key metrics-in">in/s</span>
        <span className="metrics-key metrics-out">out/s</span>
        <span className="muted">
          {live ? 'over the last minute' : 'over the run’s last minute; the run is over'}
        </span>
        <span
          className="metrics-tint-legend"
          title="Operators on the canvas take the colour of their busiest subtask's busy time"
        >
          operators
          <span className="metrics-tint-scale" aria-hidden="true">
            {[0, LOAD_LEVELS / 2, LOAD_LEVELS].map((level) => (
              <span key={level} style={{ background: busyColour(level) }} />
            ))}
          </span>
          idle → busy
        </span>
        <span
          className="metrics-tint-legend"
          title="Edges on the canvas take the colour of how much the operator they leave is held back (backpressured)"
        >
          edges
          <span className="metrics-tint-scale" aria-hidden="true">
            {[0, LOAD_LEVELS / 2, LOAD_LEVELS].map((level) => (
              <span key={level} style={{ background: heldColour(level) }} />
            ))}
          </span>
          flowing → held back
        </span>
        {shown.length < ids.length && (
          <span className="muted">
            — the {MAX_CHARTS} busiest of {ids.length} operators
          </span>
        )}
      </div>
      <LoadTable />
      <WatermarkTable />
      <div className="metrics-grid">
        {shown.map((id) => {
          const r = series.latest(id)!;
          const totals = metrics?.operators.find((op) => op.id === id);
          const text = live
            ? `in ${formatRate(r.inPerSec)}, out ${formatRate(r.outPerSec)}`
            : `${formatCount(totals?.recordsIn)} in, ${formatCount(totals?.recordsOut)} out in all`;
          return (
            <figure key={id} className="metrics-card">
              <figcaption>
                <strong>{id}</strong> <span className="muted">{text}</span>
              </figcaption>
              <Suspense fallback={<div className="rate-chart rate-chart-loading" />}>
                <RateChart
                  operator={id}
                  series={series}
                  version={version}
                  label={
                    live
                      ? `${id}: records per second over the last minute, now ${text}`
                      : `${id}: records per second over the run's last minute; ${text}`
                  }
                />
              </Suspense>
            </figure>
          );
        })}
      </div>
    </div>
  );
}
