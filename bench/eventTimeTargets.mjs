// Issue 26's targets, read off one run of the event-time suite: the table its "Must show" asks
// for, each row's figure beside the bound it must meet.

import { MANY_TIMERS_TARGET_S } from './manyTimersRow.mjs';

const fmtX = (x) => (x === undefined ? '—' : `${x.toFixed(2)}×`);
const verdict = (ok) => (ok === undefined ? 'not measured' : ok ? 'met' : '**not met**');
/** Whether every [figure, bound] pair has its figure at or over its bound; undefined if one is missing. */
const atLeast = (...pairs) =>
  pairs.some(([x]) => x === undefined) ? undefined : pairs.every(([x, min]) => x >= min);

/** The table as lines of markdown; `e` is the suite's result, `isTarget(q)` its NEXMark targets. */
export function eventTimeTargets(e, isTarget) {
  const win = (id) => e.window?.rows.find((r) => r.id === id);
  const timer = (id) => e.timers?.rows.find((r) => r.id === id);
  const rows = [];
  const add = (row, figure, ok, target) => rows.push(`| ${row} | ${figure} | ${target}: ${verdict(ok)} |`);

  const tm = win('engine-window-count-memory-p1')?.ratio;
  add('tumbling count, memory, vs the Map script', fmtX(tm), atLeast([tm, 0.6]), '≥ 0.6×');
  const tl = win('engine-window-count-level-p1')?.ratio;
  add('tumbling count, LevelDB, vs the LevelDB script', fmtX(tl), atLeast([tl, 0.8]), '≥ 0.8×');
  const sm = win('engine-window-count-sliding-memory-p1')?.ratio;
  const sl = win('engine-window-count-sliding-level-p1')?.ratio;
  add(
    'sliding (size = 3 × slide) vs the tumbling count, memory / LevelDB',
    `${fmtX(sm)} / ${fmtX(sl)}`,
    atLeast([sm, 2 / 3], [sl, 2 / 3]),
    '≥ 0.67× (a cost per record ≤ 1.5×)',
  );
  const hm = timer('engine-timers-memory-p1')?.ratio;
  const hl = timer('engine-timers-level-p1')?.rps;
  add(
    'a timer per record, memory vs a heap of timers / LevelDB records/s',
    `${fmtX(hm)} / ${hl ? Math.round(hl).toLocaleString('en-US') : '—'}`,
    atLeast([hm, 0.5], [hl, 100_000]),
    '≥ 0.5× / ≥ 100,000',
  );
  const p1 = (e.nexmark?.rows ?? []).filter((r) => r.parallelism === 1 && r.vsFlink !== undefined);
  if (p1.length > 0) {
    const lowest = p1.reduce((a, b) => (b.vsFlink < a.vsFlink ? b : a));
    const lowestCpu = p1.reduce((a, b) => ((b.vsFlinkCpu ?? 0) < (a.vsFlinkCpu ?? 0) ? b : a));
    const starred = p1.filter((r) => isTarget(r.query));
    add(
      'NEXMark at parallelism 1 vs Flink per core (wall; per CPU-s), the lowest',
      `${lowest.query} ${fmtX(lowest.vsFlink)}; ${lowestCpu.query} ${fmtX(lowestCpu.vsFlinkCpu)}`,
      p1.every((r) => r.vsFlink >= 1),
      `every query ≥ 1.0× (★ ${starred.map((r) => r.query).join(', ')} and the others)`,
    );
  } else {
    add('NEXMark at parallelism 1 vs Flink per core', '—', undefined, 'every query ≥ 1.0×');
  }
  const many = e.manyTimers?.rows[0];
  add(
    '2M timers under a 96 MB heap (`manyTimers`)',
    many?.bestMs ? `${(many.bestMs / 1000).toFixed(2)} s` : '—',
    many?.bestMs && e.manyTimers.full ? many.bestMs <= MANY_TIMERS_TARGET_S * 1000 : undefined,
    `≤ ${MANY_TIMERS_TARGET_S} s at full size`,
  );
  return [
    "#### Issue 26's targets, from this run",
    '',
    '| row | this run | target |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ];
}
