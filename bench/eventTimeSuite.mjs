// The event-time suite: the NEXMark queries of assets/nexmark at parallelism 1 and 2 beside
// Flink's published per-core throughput, and a tumbling-window count against hand-written Node
// scripts doing the same (bench/baselines/window-count-*.mjs).
//
// NEXMark: each job of assets/nexmark is copied into bench/.work/jobs with the source's `count`
// set (and `eventsPerSec` so the stream spans EVENT_TIME_SPAN_S of event time, the span of
// Flink's published run: 100 million events at 10 million a second), every operator at the
// row's parallelism, checkpoints off (Flink's run checkpoints every 3 minutes) and its sink
// writing to bench/.work/out. Events/s is the count set here over the run's wall time, spawn to
// exit: the CLI's own "records from the sources" counts a record once per edge leaving a source.

import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { digestJsonl } from './data.mjs';
import { clean, loadAverageLine, REPO_DIR, runEngine, scriptConfig, writeJob } from './engineRun.mjs';
import { windowCanon, windowCountData } from './windowCountData.mjs';

export const NEXMARK_QUERIES = ['q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q7', 'q8', 'q11'];

/**
 * Flink 1.13's throughput per core from the nexmark repository's README ("Throughput/Cores":
 * 100M events over cores × seconds, cores being the measured CPU use of 8 one-slot
 * TaskManagers, RocksDB state, parallelism 8). The issue's targets are q0, q5, q7, q8 and q11.
 */
export const FLINK_PER_CORE = {
  q0: 155_020,
  q1: 157_940,
  q2: 175_210,
  q3: 152_120,
  q4: 34_330,
  q5: 22_140,
  q7: 12_330,
  q8: 146_140,
  q11: 39_700,
};
const ISSUE_TARGETS = new Set(['q0', 'q5', 'q7', 'q8', 'q11']);

/** Seconds of event time the stream spans, whatever its count (Flink's: 100M at 10M/s). */
const EVENT_TIME_SPAN_S = 10;

export const EVENT_TIME_SIZES = {
  full: {
    nexmark: { count: 1_000_000 },
    window: { records: 1_000_000, keys: 10_000, sizeMs: 60_000 },
  },
  quick: {
    nexmark: { count: 20_000 },
    window: { records: 50_000, keys: 1000, sizeMs: 10_000 },
  },
};

/** The window job's watermark bound: the data's jitter, so that no record is late. */
const WINDOW_BOUND_MS = 50;

/**
 * Runs the suite. `ctx` gives run.mjs's `measure`, `verifyOutput` and `log`, the engine entry
 * measured, the work folders, and whether the engine runs a job at all.
 */
export async function eventTimeSuite(size, opt, ctx) {
  const { log } = ctx;
  const loadAtStart = os.loadavg()[0];
  if (!ctx.engine?.ok) {
    log(`event time: engine not measured: ${ctx.engine?.reason ?? 'unknown'}`);
    return { error: ctx.engine?.reason ?? 'the engine was not checked' };
  }
  const { count } = size.nexmark;
  const eventsPerSec = count / EVENT_TIME_SPAN_S;
  log(
    `event time: NEXMark ${NEXMARK_QUERIES.join(', ')}, ${fmtInt(count)} events each ` +
      `(${fmtInt(eventsPerSec)} events a second of event time), parallelism 1 and 2`,
  );
  const nexConfigs = NEXMARK_QUERIES.flatMap((q) =>
    [1, 2].map((p) => nexmarkConfig(q, p, { count, eventsPerSec }, ctx)),
  );
  const nexRows = await ctx.measure(nexConfigs, measureOptions(opt));
  for (const r of nexRows) {
    const flink = FLINK_PER_CORE[r.query];
    r.flinkPerCore = flink;
    r.perCore = r.rps ? r.rps / r.parallelism : undefined;
    r.vsFlink = r.perCore && flink ? r.perCore / flink : undefined;
    r.perCpuSecond = r.bestCpuMs ? r.records / (r.bestCpuMs / 1000) : undefined;
    r.vsFlinkCpu = r.perCpuSecond && flink ? r.perCpuSecond / flink : undefined;
    const digests = r.digests ?? [];
    r.outputLines = digests[0] ? Number(digests[0].split(':')[0]) : undefined;
    r.sameEveryRun = digests.length > 0 && digests.every((d) => d === digests[0]);
  }
  for (const r of nexRows.filter((x) => x.parallelism === 2)) {
    const one = nexRows.find((x) => x.query === r.query && x.parallelism === 1);
    if (one?.digests?.[0] && r.digests?.[0]) r.sameAsP1 = one.digests[0] === r.digests[0];
    if (one?.rps && r.rps) r.vsP1 = r.rps / one.rps;
  }

  const d = windowCountData(size.window);
  log(
    `event time: tumbling-window count, ${fmtInt(d.records)} records, ${fmtInt(d.keys)} keys, ` +
      `${d.sizeMs / 1000} s windows (${d.windows} windows, ${fmtInt(d.outputs)} results)`,
  );
  const winRows = await ctx.measure(windowConfigs(d, ctx), measureOptions(opt));
  for (const r of winRows) {
    const base = r.vs ? winRows.find((x) => x.id === r.vs) : undefined;
    if (base?.rps && r.rps) r.ratio = r.rps / base.rps;
  }
  return {
    nexmark: { count, eventsPerSec, spanS: EVENT_TIME_SPAN_S, rows: nexRows.map(stripDigests) },
    window: {
      data: pick(d, ['records', 'keys', 'sizeMs', 'jitterMs', 'bytes', 'windows', 'outputs']),
      boundMs: WINDOW_BOUND_MS,
      rows: winRows,
    },
    loadAtStart,
    loadAtEnd: os.loadavg()[0],
  };
}

/** --quick takes `--runs` runs of each row: 22 rows of short runs would otherwise get 5 each. */
function measureOptions(opt) {
  return opt.quick ? { runs: opt.runs, shortRuns: opt.runs } : { runs: opt.runs };
}

/** A NEXMark query's job, as assets/nexmark has it, set for one row of the suite. */
function nexmarkJob(query, parallelism, { count, eventsPerSec }) {
  const job = JSON.parse(readFileSync(join(REPO_DIR, 'assets', 'nexmark', `${query}.job.json`), 'utf8'));
  const name = `nexmark-${query}-p${parallelism}`;
  job.name = name;
  job.settings = { ...job.settings, checkpointIntervalMs: 0 };
  for (const o of job.operators) {
    o.parallelism = parallelism;
    if (o.kind === 'source.nexmark') o.params = { ...o.params, count, eventsPerSec };
    if (o.kind === 'sink.jsonl') o.params = { ...o.params, path: `../out/${name}.jsonl` };
  }
  return job;
}

function nexmarkConfig(query, parallelism, stream, ctx) {
  const job = nexmarkJob(query, parallelism, stream);
  const jobPath = writeJob(join(ctx.jobsDir, `${job.name}.job.json`), job);
  const stateDir = join(ctx.stateDir, job.name);
  const out = join(ctx.outDir, `${job.name}.jsonl`);
  const digests = [];
  return {
    id: job.name,
    label: `${query}, parallelism ${parallelism}, ${parallelism === 1 ? '1 thread' : `${parallelism} threads`}`,
    records: stream.count,
    kind: 'nexmark',
    query,
    parallelism,
    digests,
    stateDir,
    prepare: () => clean(stateDir, out, join(ctx.jobsDir, '.pipewright')),
    run: () =>
      runEngine(jobPath, {
        entry: ctx.engineEntry,
        stateDir,
        timeoutMs: 15 * 60_000,
        extraArgs: ['--threads', String(parallelism)],
      }),
    // Each query's output is checked against a plain-JS reference by test/nexmark; here the
    // output must be there, and its digest is kept to say whether the runs agree.
    verify: async () => {
      if (!existsSync(out)) return `no output file ${out}`;
      digests.push(await digestJsonl(out, (o) => JSON.stringify(o)));
      return undefined;
    },
  };
}

function stripDigests(r) {
  const { digests, ...rest } = r;
  return { ...rest, outputDigest: digests?.[0] };
}

/** The window count: the engine on each backend at parallelism 1, and each hand-written script. */
function windowConfigs(d, ctx) {
  const configs = [];
  const common = { in: d.path, size: d.sizeMs, field: 't', bound: WINDOW_BOUND_MS };
  const baseline = (id, label, script, backend, options = {}) =>
    scriptConfig(ctx, {
      id,
      label,
      script,
      backend,
      records: d.records,
      args: { ...common, ...options },
      verify: (out) => ctx.verifyOutput(out, windowCanon, d.expectedDigest),
    });

  const engine = (backend, vs) => {
    const name = `window-count-${backend}-p1`;
    const job = windowJob(name, d, backend);
    const jobPath = writeJob(join(ctx.jobsDir, `${name}.job.json`), job);
    const stateDir = join(ctx.stateDir, name);
    const out = join(ctx.outDir, `${name}.jsonl`);
    return {
      id: `engine-${name}`,
      label: `engine: ${backend}, parallelism 1, 1 thread`,
      records: d.records,
      kind: 'engine',
      backend,
      vs,
      stateDir,
      prepare: () => clean(stateDir, out, join(ctx.jobsDir, '.pipewright')),
      run: () =>
        runEngine(jobPath, {
          entry: ctx.engineEntry,
          stateDir,
          timeoutMs: 15 * 60_000,
          extraArgs: ['--threads', '1'],
        }),
      verify: () => ctx.verifyOutput(out, windowCanon, d.expectedDigest),
    };
  };
  configs.push(baseline('window-baseline-map', 'baseline: Map script', 'window-count-map.mjs', 'memory'));
  configs.push(engine('memory', 'window-baseline-map'));
  configs.push(
    baseline(
      'window-baseline-level',
      'baseline: LevelDB script, 1000-key batches, one in flight',
      'window-count-level.mjs',
      'level',
      { batch: 1000 },
    ),
  );
  configs.push(engine('level', 'window-baseline-level'));
  return configs;
}

function windowJob(name, d, backend) {
  const rel = (p) => `../data/${p.split('/').pop()}`;
  return {
    format: 'pipewright.job/1',
    name,
    settings: { maxParallelism: 128, stateBackend: backend, checkpointIntervalMs: 0 },
    operators: [
      {
        id: 'src',
        kind: 'source.jsonl',
        parallelism: 1,
        params: { path: rel(d.path), timestampField: 't', maxOutOfOrdernessMs: WINDOW_BOUND_MS },
      },
      {
        id: 'counts',
        kind: 'window',
        parallelism: 1,
        params: { type: 'tumbling', sizeMs: d.sizeMs, aggregate: 'count' },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: `../out/${name}.jsonl` } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'counts', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'counts', to: 'out', partition: 'forward' },
    ],
  };
}

function pick(o, keys) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

// ---------------------------------------------------------------------------------------
// The docs section: its title starts with "### Event time", as run.mjs's SECTION_SUITES knows it.

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtS = (ms) => (ms / 1000).toFixed(2);
const fmtMiB = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const fmtX = (x) => (x ? `**${x.toFixed(2)}×**` : '—');
const fmtK = (n) => (n ? `${(n / 1000).toFixed(1)}k` : '—');
const failedCell = (r) =>
  r.error ? `FAILED: ${r.error.replaceAll('|', '\\|')}` : r.times.length ? 'ok' : '—';

export function eventTimeReport(e) {
  const L = ['### Event time: NEXMark and a tumbling-window count', ''];
  if (e.error) return [...L, `**Not measured:** ${e.error}`, ''];
  const n = e.nexmark;
  L.push(
    `#### NEXMark: ${fmtInt(n.count)} events per run (${fmtInt(n.eventsPerSec)} a second of event time, ` +
      `${n.spanS} s of it, as Flink's published run), checkpoints off, LevelDB state`,
  );
  L.push('');
  L.push(
    '| query | parallelism | events/s (best, wall) | per core | Flink per core | ours / Flink per core | ' +
      'events per CPU-second | ours / Flink (CPU) | p2 / p1 | best s | its CPU s | runs s | peak RSS | output lines | output |',
  );
  L.push(
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |',
  );
  for (const r of n.rows) {
    const same = r.parallelism === 2 && r.sameAsP1 !== undefined ? (r.sameAsP1 ? ' (= p1)' : ' (≠ p1)') : '';
    L.push(
      `| ${r.query}${ISSUE_TARGETS.has(r.query) ? ' ★' : ''} | ${r.parallelism} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ` +
        `${fmtK(r.perCore)} | ${fmtK(r.flinkPerCore)} | ${fmtX(r.vsFlink)} | ${fmtK(r.perCpuSecond)} | ` +
        `${r.vsFlinkCpu ? `${r.vsFlinkCpu.toFixed(2)}×` : '—'} | ${r.vsP1 ? `${r.vsP1.toFixed(2)}×` : ''} | ` +
        `${r.bestMs ? fmtS(r.bestMs) : '—'} | ${r.bestCpuMs ? fmtS(r.bestCpuMs) : '—'} | ` +
        `${r.times.map(fmtS).join(' / ') || '—'} | ${r.peakRssKb ? fmtMiB(r.peakRssKb) : '—'} | ` +
        `${r.outputLines === undefined ? '—' : fmtInt(r.outputLines)}${same}${r.sameEveryRun === false ? ', differs between runs' : ''} | ${failedCell(r)} |`,
    );
  }
  L.push('');
  L.push(
    '★ the issue\'s targets. "Per core": events/s ÷ parallelism (parallelism 1 runs on `--threads 1`, ' +
      'parallelism 2 on `--threads 2`), against Flink 1.13\'s "Throughput/Cores" of the nexmark README ' +
      "(8 one-slot TaskManagers, parallelism 8, RocksDB). Flink's cores are its measured CPU use, so " +
      '"events per CPU-second" (the count ÷ the process\'s user + system CPU time) is the like-for-like ' +
      'figure; "per core" charges each subtask a whole core. Output lines: the p2 row says whether its ' +
      "output is the same multiset of lines as p1's (test/nexmark checks each query against a plain-JS reference).",
  );
  L.push('');
  const w = e.window;
  L.push(
    `#### Tumbling-window count: ${fmtInt(w.data.records)} records, ${fmtInt(w.data.keys)} keys, ` +
      `${w.data.sizeMs / 1000} s windows (${w.data.windows} windows, ${fmtInt(w.data.outputs)} results)`,
  );
  L.push('');
  L.push(
    '| implementation | records/s (best) | vs its script | best s | its CPU s | runs s | peak RSS | output |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |');
  for (const r of w.rows) {
    L.push(
      `| ${r.label} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ${r.ratio ? fmtX(r.ratio) : ''} | ` +
        `${r.bestMs ? fmtS(r.bestMs) : '—'} | ${r.bestCpuMs ? fmtS(r.bestCpuMs) : '—'} | ` +
        `${r.times.map(fmtS).join(' / ') || '—'} | ${r.peakRssKb ? fmtMiB(r.peakRssKb) : '—'} | ${failedCell(r)} |`,
    );
  }
  L.push('');
  L.push(
    `Event time from the field \`t\`, out of order by up to ${w.data.jitterMs} ms, watermark bound ${w.boundMs} ms ` +
      "(so no record is late); the engine's `window` (count) against bench/baselines/window-count-map.mjs and " +
      "-level.mjs: the same count per key and window, fired when the watermark reaches the window's end − 1. " +
      'Every output is checked against counts made when the data was generated.',
  );
  L.push('');
  L.push(loadAverageLine(e.loadAtStart, e.loadAtEnd));
  L.push('');
  return L;
}
