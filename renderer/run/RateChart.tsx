// One operator's records in and out per second over the last minute, drawn by uPlot. uPlot
// draws on a canvas it owns: the chart is made once per operator and run, fed new data with
// setData as measurements arrive, resized with its box, and destroyed on unmount.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricsSeries } from './metricsSeries';

const HEIGHT = 120;
const AXIS_FONT = '10px system-ui';
/** Room beside a y axis label: its tick (10 px), the gap (5 px) and a margin. */
const Y_AXIS_PADDING = 20;

/** The y axis as wide as its widest label, so "10,000" is not cut to "0,000" at the chart's edge. */
function yAxisSize(self: uPlot, values: string[] | null): number {
  if (values === null || values.length === 0) return 44;
  const ctx = self.ctx;
  ctx.save();
  ctx.font = AXIS_FONT;
  const widest = Math.max(...values.map((v) => ctx.measureText(v).width));
  ctx.restore();
  return Math.max(44, Math.ceil(widest) + Y_AXIS_PADDING);
}

/** Canvas strokes cannot use CSS variables; these are app.css's --transform and --source. */
const IN_COLOUR = '#1565c0';
const OUT_COLOUR = '#2e7d32';

function options(width: number): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: false },
    // Rates are never negative; the y axis starts at 0 so a flat line is not mistaken for a drop.
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { size: 24, values: (_u, ticks) => ticks.map((t) => `${t}s`), font: AXIS_FONT },
      { size: yAxisSize, font: AXIS_FONT },
    ],
    series: [
      {},
      { label: 'in/s', stroke: IN_COLOUR, width: 1.5, points: { show: false } },
      { label: 'out/s', stroke: OUT_COLOUR, width: 1.5, points: { show: false } },
    ],
  };
}

export function RateChart({
  operator,
  series,
  version,
  label,
}: {
  operator: string;
  series: MetricsSeries;
  version: number;
  label: string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);

  useEffect(() => {
    const element = holder.current;
    if (element === null) return;
    const chart = new uPlot(options(Math.max(element.clientWidth, 160)), series.window(operator), element);
    plot.current = chart;
    const resize = new ResizeObserver(() => {
      if (element.clientWidth > 0) chart.setSize({ width: element.clientWidth, height: HEIGHT });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [operator, series]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the series object is mutated in place; version says it changed
  useEffect(() => {
    plot.current?.setData(series.window(operator));
  }, [operator, series, version]);

  return <div className="rate-chart" ref={holder} role="img" aria-label={label} />;
}
