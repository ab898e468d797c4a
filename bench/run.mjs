#!/usr/bin/env node
// Pipewright benchmarks: the engine's CLI against hand-written Node scripts doing the same
// job, measured in the same run, side by side. See docs/benchmarks.md for the method.
//
//   node bench/run.mjs [--only keyed,flink,awaited,large,usercall,transport,checkpoints,stepback,designer,eventtime,transactions,connectors,loops] [--quick] [--build] [--runs N]
//                      [--docs | --no-docs] [--profile]
//
// --only    run only these suites (comma-separated)
// --quick   small inputs, for development (results are not written to the docs)
// --build   run `npm run build` first
// --runs N  at least N runs of each measurement (default 2; 5 in all for those under 15 s)
// --docs    write the results into docs/benchmarks.md even with --only or --quick
// --no-docs never write the docs
// --no-nexmark  of the eventtime suite, only the window and timer rows (a few minutes with --quick);
//           never writes the docs
// --profile after the timed runs of a measurement, one more run of each of its rows under
//           `node --cpu-prof`; its summary by area (bench/profileAreas.mjs) goes under the suite's table
// --checkpoint-throughput-only  of the checkpoints suite, only its throughput row (checkpoints off
//           against every second, ~5 minutes); never writes the docs
// The full run (no --only, no --quick) writes its results table into docs/benchmarks.md
// between <!-- results:start --> and <!-- results:end -->; with --only, --docs replaces only the
// sections of the suites it ran (each marked with its own run), keeping the others. Every run
// writes bench/.work/results.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { checkpointStateSuite } from './checkpoints.mjs';
import { CONNECTOR_SIZES, connectorReport, connectorSuite } from './connectorSuite.mjs';
import {
  DATA_DIR,
  digestJsonl,
  keyedCanon,
  keyedData,
  largeCanon,
  largeStateData,
  WORK_DIR,
} from './data.mjs';
import { designerSuite } from './designer.mjs';
import {
  clean,
  dirBytes,
  profiled,
  REPO_DIR,
  rssMethod,
  runBaseline,
  runEngine,
  runTimed,
  writeJob,
} from './engineRun.mjs';
import { EVENT_TIME_SIZES, eventTimeReport, eventTimeSuite } from './eventTimeSuite.mjs';
import { flinkReport, flinkSuite } from './flinkSuite.mjs';
import { LOOP_SIZES, loopReport, loopSuite } from './loopSuite.mjs';
import { profileDirAreas, profileTable } from './profileAreas.mjs';
import { stepBackSuite } from './stepBack.mjs';
import { TRANSACTION_SIZES, transactionReport, transactionSuite } from './transactionSuite.mjs';
import { transportReport, transportSuite } from './transportSuite.mjs';

const SUITES = [
  'keyed',
  'flink',
  'awaited',
  'large',
  'usercall',
  'transport',
  'checkpoints',
  'stepback',
  'designer',
  'eventtime',
  'transactions',
  'connectors',
  'loops',
];
const JOBS_DIR = join(WORK_DIR, 'jobs');
const OUT_DIR = join(WORK_DIR, 'out');
const STATE_DIR = join(WORK_DIR, 'state');
const DOCS = join(REPO_DIR, 'docs', 'benchmarks.md');
const DIST = join(REPO_DIR, 'dist');
/** The engine measured: a copy of dist/ taken at the start, so a rebuild during the run cannot mix builds. */
const SNAPSHOT = join(WORK_DIR, 'engine', 'dist');
const ENGINE_ENTRY = join(SNAPSHOT, 'cli', 'pipewright.js');
/** Whether measure() profiles each row once more (--profile). */
const PROFILE = { on: false };
const START = '<!-- results:start -->';
const END = '<!-- results:end -->';
/** A measurement whose runs all took less than this gets one more run. */
const SHORT_RUN_MS = 15_000;
/** How many runs such a short measurement gets in all. */
const SHORT_RUNS = 5;

const SIZES = {
  full: {
    keyed: { records: 1_000_000, keys: 100_000 },
    awaited: { records: 100_000, keys: 10_000 },
    large: { records: 1_100_000, bars: 16, payloadChars: 1000 },
    usercallCalls: 5_000_000,
    checkpoints: {
      // Part 4: the keyed job (the keyed suite's input) with checkpoints off and every second.
      throughput: { records: 1_000_000, keys: 100_000 },
      throughputIntervalMs: 1000,
      // Parts 1-3 (bench/checkpoints.mjs): ~1 KiB per key, so 10k / 100k / 1M keys ≈ 10 MB / 100 MB / 1 GB.
      sizes: [10_000, 100_000, 1_000_000],
      sizeShare: 0.01,
      intervalMs: 1000,
      shareKeys: 100_000,
      shares: [0.001, 0.01, 0.1, 1],
      // 100% of 100,000 keys per interval needs 20,000 updates/s at 5 s; the engine cannot do 100,000/s.
      shareIntervalMs: 5000,
      later: 5,
      recoverRuns: (keys) => (keys >= 1_000_000 ? 2 : 3),
    },
  },
  quick: {
    keyed: { records: 100_000, keys: 10_000 },
    awaited: { records: 10_000, keys: 1000 },
    large: { records: 50_000, bars: 16, payloadChars: 1000 },
    usercallCalls: 1_000_000,
    checkpoints: {
      throughput: { records: 100_000, keys: 10_000 },
      throughputIntervalMs: 1000,
      sizes: [2000, 20_000],
      sizeShare: 0.01,
      intervalMs: 1000,
      shareKeys: 20_000,
      shares: [0.01, 1],
      shareIntervalMs: 2000,
      later: 3,
      recoverRuns: 1,
    },
  },
};

export const KEYED_CODE =
  "function process(r, ctx) { const s = ctx.state.value('acc'); const a = s.get() ?? { n: 0, sum: 0 }; " +
  'a.n += 1; a.sum += r.v; s.set(a); ctx.emit({ k: r.k, n: a.n, sum: a.sum }); }';

export const LARGE_CODE =
  "function process(r, ctx) { const c = ctx.state.value('count'); const n = (c.get() ?? 0) + 1; c.set(n); " +
  "ctx.state.map('foos').set(r.foo, r.payload); ctx.emit({ bar: r.bar, n }); }";

function parseCli(argv) {
  const o = { only: SUITES, quick: false, build: false, runs: 2, docs: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--build') o.build = true;
    else if (a === '--docs') o.docs = true;
    else if (a === '--no-docs') o.docs = false;
    else if (a === '--checkpoint-throughput-only') o.checkpointThroughputOnly = true;
    else if (a === '--no-nexmark') o.noNexmark = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--only') {
      o.only = (argv[++i] ?? '').split(',').filter(Boolean);
      const bad = o.only.filter((s) => !SUITES.includes(s));
      if (bad.length > 0 || o.only.length === 0) usage(`--only takes some of ${SUITES.join(',')}`);
      o.onlyGiven = true;
    } else if (a === '--runs') {
      o.runs = Number(argv[++i]);
      if (!Number.isInteger(o.runs) || o.runs < 1) usage('--runs takes a positive integer');
    } else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument ${a}`);
  }
  if (o.docs === undefined) o.docs = !o.quick && !o.onlyGiven;
  // A section of the docs is replaced whole: a part of one is never written there.
  if (o.checkpointThroughputOnly) {
    if (!o.onlyGiven || !o.only.includes('checkpoints'))
      usage('--checkpoint-throughput-only goes with --only checkpoints');
    o.docs = false;
  }
  if (o.noNexmark) {
    if (!o.onlyGiven || !o.only.includes('eventtime')) usage('--no-nexmark goes with --only eventtime');
    o.docs = false;
  }
  return o;
}

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    `usage: node bench/run.mjs [--only ${SUITES.join(',')}] [--quick] [--build] [--runs N] [--docs|--no-docs] [--profile] [--checkpoint-throughput-only] [--no-nexmark]\n`,
  );
  process.exit(message ? 2 : 0);
}

const log = (s) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------------------------------
// Jobs for the engine

function keyedJob(name, { dataPath, backend, parallelism, checkpointIntervalMs = 0 }) {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { maxParallelism: 128, stateBackend: backend, checkpointIntervalMs },
    operators: [
      { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: rel(dataPath) } },
      { id: 'acc', kind: 'process', parallelism, params: { code: KEYED_CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: `../out/${name}.jsonl` } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'acc', to: 'out', partition: parallelism === 1 ? 'forward' : 'rebalance' },
    ],
  };
}

function largeJob(name, { dataPath }) {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { maxParallelism: 128, stateBackend: 'level', checkpointIntervalMs: 0 },
    operators: [
      { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: rel(dataPath) } },
      { id: 'bars', kind: 'process', parallelism: 1, params: { code: LARGE_CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: `../out/${name}.jsonl` } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'bars', partition: 'hash', key: 'bar' },
      { id: 'e2', from: 'bars', to: 'out', partition: 'forward' },
    ],
  };
}

/** Job files live in bench/.work/jobs; their paths are relative to it, as the contract allows. */
function rel(dataPath) {
  return `../data/${dataPath.slice(DATA_DIR.length + 1)}`;
}

function dirs() {
  for (const d of [JOBS_DIR, OUT_DIR, STATE_DIR]) mkdirSync(d, { recursive: true });
}

/**
 * An engine measurement: writes the job, cleans state and output before each run. `extraArgs`
 * go to `pipewright run`, `scratch` paths are removed before each run too, and `inspect()` (if
 * any) is called after each successful run; what it returns is kept in the row's `inspections`.
 */
function engineConfig(
  id,
  label,
  job,
  { records, expected, canon, nodeFlags = [], meta = {}, timeoutMs, extraArgs = [], scratch = [], inspect },
) {
  const jobPath = writeJob(join(JOBS_DIR, `${job.name}.job.json`), job);
  const stateDir = join(STATE_DIR, job.name);
  const out = join(OUT_DIR, `${job.name}.jsonl`);
  return {
    id,
    label,
    records,
    stateDir,
    ...meta,
    prepare: () => clean(stateDir, out, join(JOBS_DIR, '.pipewright'), ...scratch),
    run: () => runEngine(jobPath, { entry: ENGINE_ENTRY, stateDir, nodeFlags, timeoutMs, extraArgs }),
    verify: () => verifyOutput(out, canon, expected),
    inspect,
  };
}

/** A baseline measurement: a script under bench/baselines. */
function baselineConfig(
  id,
  label,
  script,
  { records, input, expected, canon, options = {}, nodeFlags, meta = {} },
) {
  const out = join(OUT_DIR, `${id}.jsonl`);
  const db = join(STATE_DIR, id);
  const usesDb = script.includes('level');
  return {
    id,
    label,
    records,
    stateDir: usesDb ? db : undefined,
    ...meta,
    prepare: () => clean(out, db),
    run: () => runBaseline(script, { in: input, out, ...(usesDb ? { db } : {}), ...options }, { nodeFlags }),
    verify: () => verifyOutput(out, canon, expected),
  };
}

async function verifyOutput(path, canon, expected) {
  if (!existsSync(path)) return `no output file ${path}`;
  let got;
  try {
    got = await digestJsonl(path, canon);
  } catch (e) {
    return `unreadable output: ${e.message}`;
  }
  if (got === expected) return undefined;
  const [gotCount] = got.split(':');
  const [wantCount] = expected.split(':');
  return gotCount === wantCount
    ? `output differs from the reference (same ${gotCount} lines, other contents)`
    : `output differs from the reference (${gotCount} lines, expected ${wantCount})`;
}

// ---------------------------------------------------------------------------------------
// Measuring

/**
 * Runs every config at least `runs` times, round-robin (one run of each config per round,
 * so slow drift of the machine hits all of them alike); configs whose runs all took less
 * than SHORT_RUN_MS get `shortRuns` (SHORT_RUNS unless said) runs in all. Keeps the best time.
 */
async function measure(configs, { runs, pollState = false, shortRuns = SHORT_RUNS }) {
  const results = new Map(
    configs.map((c) => [c.id, { times: [], cpuTimes: [], peakRssKb: 0, stateBytesPeak: 0, inspections: [] }]),
  );
  const maxRounds = Math.max(runs, shortRuns);
  const wanted = (r) => (r.times.every((t) => t < SHORT_RUN_MS) ? maxRounds : runs);
  for (let round = 0; round < maxRounds; round++) {
    for (const c of configs) {
      const r = results.get(c.id);
      if (r.error) continue;
      if (r.times.length >= wanted(r)) continue;
      c.prepare();
      let poll;
      if (pollState && c.stateDir) {
        poll = setInterval(() => {
          r.stateBytesPeak = Math.max(r.stateBytesPeak, safeDirBytes(c.stateDir));
        }, 2000);
      }
      let res;
      try {
        res = await c.run();
      } catch (e) {
        res = { code: null, stderr: String(e), ms: 0, peakRssKb: 0 };
      } finally {
        if (poll) clearInterval(poll);
      }
      if (res.code !== 0) {
        r.error = `exit ${res.code ?? `signal ${res.signal}`}: ${firstLines(res.stderr || res.stdout)}`;
        log(`  ${c.label}: FAILED ${r.error}`);
        continue;
      }
      if (c.stateDir) {
        const end = safeDirBytes(c.stateDir);
        r.stateBytesEnd = end;
        r.stateBytesPeak = Math.max(r.stateBytesPeak, end);
      }
      const bad = await c.verify();
      if (bad) {
        r.error = bad;
        log(`  ${c.label}: FAILED ${bad}`);
        continue;
      }
      r.times.push(res.ms);
      r.cpuTimes.push(res.cpuMs);
      if (c.inspect) r.inspections.push(c.inspect());
      r.peakRssKb = Math.max(r.peakRssKb, res.peakRssKb);
      log(
        `  ${c.label}: ${(res.ms / 1000).toFixed(2)} s, ${fmtInt(c.records / (res.ms / 1000))} records/s, ` +
          `peak RSS ${fmtMiB(res.peakRssKb * 1024)}, output ok`,
      );
    }
  }
  if (PROFILE.on) {
    // Untimed: a profiled run is slower, and its entry is not the bundle the timed runs use.
    for (const c of configs) {
      const r = results.get(c.id);
      // A config that runs no node process (Flink's JVM) says so: its run would write no profile.
      if (r.error || c.cpuProfile === false) continue;
      c.prepare();
      const dir = join(WORK_DIR, 'profiles', c.id);
      const res = await profiled(dir, () => c.run()).catch((e) => ({ code: null, stderr: String(e) }));
      if (res.code !== 0) {
        log(`  ${c.label}: the profiled run failed (${firstLines(res.stderr || res.stdout)})`);
        continue;
      }
      // Checked as a timed run is: a check may also clean up what its run made (a replication slot).
      const bad = await c.verify();
      if (bad) {
        log(`  ${c.label}: the profiled run's output: ${bad}`);
        continue;
      }
      r.profile = profileDirAreas(dir);
      log(`  ${c.label}: profiled, ${(r.profile.busyMs / 1000).toFixed(2)} busy s`);
    }
  }
  return configs.map((c) => {
    const r = results.get(c.id);
    const bestMs = r.times.length > 0 ? Math.min(...r.times) : undefined;
    const bestCpuMs = bestMs === undefined ? undefined : r.cpuTimes[r.times.indexOf(bestMs)];
    const { prepare, run, verify, inspect, cpuProfile, ...rest } = c;
    return { ...rest, ...r, bestMs, bestCpuMs, rps: bestMs ? c.records / (bestMs / 1000) : undefined };
  });
}

function safeDirBytes(dir) {
  try {
    return dirBytes(dir);
  } catch {
    return 0; // LevelDB deleted a file between readdir and stat; the next poll will do
  }
}

function firstLines(s, n = 3) {
  const lines = String(s ?? '')
    .trim()
    .split('\n')
    .filter(Boolean);
  return lines.slice(0, n).join(' | ').slice(0, 400) || '(no message)';
}

// ---------------------------------------------------------------------------------------
// The engine: is it there, and does it run a job?

/** Copies dist/ to bench/.work/engine/dist; false when the engine is not built. */
function snapshotEngine() {
  clean(SNAPSHOT);
  if (!existsSync(join(DIST, 'cli', 'pipewright.js'))) return false;
  cpSync(DIST, SNAPSHOT, { recursive: true, filter: (src) => !src.endsWith('.map') });
  return true;
}

async function engineStatus() {
  if (!existsSync(ENGINE_ENTRY)) {
    return {
      ok: false,
      reason: 'the engine is not built (dist/cli/pipewright.js is missing; npm run build)',
    };
  }
  dirs();
  const d = keyedData({ records: 2000, keys: 50 });
  const job = keyedJob('smoke', { dataPath: d.path, backend: 'level', parallelism: 1 });
  const c = engineConfig('smoke', 'smoke', job, {
    records: d.records,
    expected: d.expectedDigest,
    canon: keyedCanon,
    timeoutMs: 120_000,
  });
  c.prepare();
  const res = await c.run();
  if (res.code !== 0) {
    return {
      ok: false,
      reason: `\`pipewright run\` of a 2000-record job: exit ${res.code ?? res.signal}: ${firstLines(res.stderr || res.stdout)}`,
    };
  }
  const bad = await c.verify();
  if (bad) return { ok: false, reason: `\`pipewright run\` of a 2000-record job: ${bad}` };
  return { ok: true };
}

// ---------------------------------------------------------------------------------------
// Suites

/**
 * The keyed suite's engine row for `backend` and `parallelism` on `threads` threads
 * (`pipewright run --threads`); the Flink suite measures those with threads = parallelism too.
 */
function keyedEngineConfig(d, backend, parallelism, threads) {
  const name = `keyed-${backend}-p${parallelism}-t${threads}`;
  return engineConfig(
    `engine-${backend}-p${parallelism}-t${threads}`,
    `engine: ${backend}, parallelism ${parallelism}, ${threads === 1 ? '1 thread' : `${threads} threads`}`,
    keyedJob(name, { dataPath: d.path, backend, parallelism }),
    {
      records: d.records,
      expected: d.expectedDigest,
      canon: keyedCanon,
      meta: {
        kind: 'engine',
        backend,
        parallelism,
        threads,
        vs: backend === 'memory' ? 'baseline-map' : 'baseline-level',
      },
      timeoutMs: 15 * 60_000,
      extraArgs: ['--threads', String(threads)],
    },
  );
}

/**
 * The keyed suite's engine rows of one backend, as [parallelism, threads]: parallelism 1 on one
 * thread (the deterministic executor: the baseline of the thread ratios), parallelism 2 and 4 on
 * as many threads, and parallelism 2 on one thread (the same job without the threads).
 */
const KEYED_ENGINE_ROWS = [
  [1, 1],
  [2, 2],
  [4, 4],
  [2, 1],
];

async function keyedSuite(size, opt, engine) {
  const d = keyedData(size);
  log(`keyed read-modify-write: ${fmtInt(d.records)} records, ${fmtInt(d.keys)} keys (${d.path})`);
  const common = { records: d.records, input: d.path, expected: d.expectedDigest, canon: keyedCanon };
  const configs = [
    baselineConfig('baseline-map', 'baseline: Map script', 'keyed-map.mjs', {
      ...common,
      meta: { kind: 'baseline', backend: 'memory' },
    }),
  ];
  const engineRows = (backend) =>
    engine.ok ? KEYED_ENGINE_ROWS.map(([p, t]) => keyedEngineConfig(d, backend, p, t)) : [];
  configs.push(...engineRows('memory'));
  configs.push(
    baselineConfig('baseline-level', 'baseline: LevelDB script, one batch in flight', 'keyed-level.mjs', {
      ...common,
      options: { batch: 1000, inflight: 1 },
      meta: { kind: 'baseline', backend: 'level' },
    }),
    baselineConfig(
      'baseline-level-awaitbatch',
      'baseline: LevelDB script, each batch awaited',
      'keyed-level.mjs',
      {
        ...common,
        options: { batch: 1000, inflight: 0 },
        meta: { kind: 'baseline', backend: 'level', vs: 'baseline-level' },
      },
    ),
  );
  configs.push(...engineRows('level'));
  const rows = withRatios(await measure(configs, { runs: opt.runs }));
  // The thread ratios: each engine row against parallelism 1 on one thread of its backend.
  for (const r of rows) {
    const one = rows.find((x) => x.id === `engine-${r.backend}-p1-t1`);
    if (r.kind === 'engine' && one?.rps && r.rps) r.ratioOneThread = r.rps / one.rps;
  }
  return { data: pick(d, ['records', 'keys', 'bytes']), rows };
}

async function awaitedSuite(size, opt) {
  const d = keyedData(size);
  log(`awaited get/put per record: ${fmtInt(d.records)} records, ${fmtInt(d.keys)} keys`);
  const common = { records: d.records, input: d.path, expected: d.expectedDigest, canon: keyedCanon };
  const configs = [
    baselineConfig(
      'small-level',
      'LevelDB script: getSync + 1000-key batches, one in flight',
      'keyed-level.mjs',
      {
        ...common,
        options: { batch: 1000, inflight: 1 },
        meta: { kind: 'baseline', backend: 'level' },
      },
    ),
    baselineConfig(
      'small-awaited',
      'LevelDB script: awaited get + put per record',
      'keyed-level-awaited.mjs',
      {
        ...common,
        meta: { kind: 'baseline', backend: 'level', vs: 'small-level' },
      },
    ),
  ];
  const rows = await measure(configs, { runs: opt.runs });
  return { data: pick(d, ['records', 'keys', 'bytes']), rows: withRatios(rows) };
}

async function largeSuite(size, opt, engine) {
  log(
    `large state: generating/reusing ${fmtInt(size.records)} records with ${size.payloadChars}-char payloads`,
  );
  const d = largeStateData(size);
  log(`large state: ${fmtInt(d.records)} records over ${d.bars} bars, input ${fmtMiB(d.bytes)} (${d.path})`);
  const nodeFlags = ['--max-old-space-size=256'];
  const common = { records: d.records, expected: d.expectedDigest, canon: largeCanon, nodeFlags };
  const configs = [];
  if (engine.ok) {
    configs.push(
      engineConfig(
        'large-engine',
        'engine: level, parallelism 1',
        largeJob('large-level-p1', { dataPath: d.path }),
        {
          ...common,
          meta: { kind: 'engine', backend: 'level', parallelism: 1 },
          timeoutMs: 30 * 60_000,
        },
      ),
    );
  }
  configs.push(
    baselineConfig('large-baseline', 'hand-written LevelDB script (for scale)', 'large-level.mjs', {
      ...common,
      input: d.path,
      options: { batch: 1000 },
      meta: { kind: 'baseline', backend: 'level' },
    }),
  );
  const rows = await measure(configs, { runs: opt.runs, pollState: true });
  for (const c of configs) c.prepare(); // gigabytes: do not leave them in bench/.work
  return { data: pick(d, ['records', 'bars', 'payloadChars', 'bytes']), rows };
}

async function usercallSuite(calls) {
  const userCode = join(SNAPSHOT, 'engine', 'sandbox', 'userCode.js');
  log(`user-code call cost: ${fmtInt(calls)} calls per round`);
  const res = await runTimed(process.execPath, [
    join(REPO_DIR, 'bench', 'micro', 'userCall.mjs'),
    String(calls),
    userCode,
  ]);
  if (res.code !== 0) return { error: firstLines(res.stderr) };
  const r = JSON.parse(res.stdout.trim().split('\n').pop());
  log(
    `  plain ${r.plainNs} ns/call, engine ${r.engine.ns ?? `TODO (${r.engine.todo})`}, bare SES ${r.sesNs} ns/call`,
  );
  return { calls, ...r };
}

/**
 * Part 4: the keyed job on LevelDB at parallelism 1, checkpoints off against every
 * `throughputIntervalMs`, round-robin like any suite, outputs checked. Then parts 1-3
 * (bench/checkpoints.mjs): checkpoint cost against state size and changed share, recovery time.
 */
async function checkpointsSuite(size, opt, engine) {
  if (!engine.ok) return { error: engine.reason };
  const d = keyedData(size.throughput);
  log(
    `checkpoints: throughput of the keyed job, ${fmtInt(d.records)} records, ${fmtInt(d.keys)} keys, ` +
      `checkpoints off vs every ${size.throughputIntervalMs} ms`,
  );
  const common = { records: d.records, input: d.path, expected: d.expectedDigest, canon: keyedCanon };
  const cfg = (id, label, intervalMs, vs) => {
    const name = `keyed-level-p1-${intervalMs ? `cp${intervalMs}ms` : 'cpoff'}`;
    const checkpointDir = join(STATE_DIR, `${name}-checkpoints`);
    const metrics = join(STATE_DIR, `${name}-metrics.jsonl`);
    return engineConfig(
      id,
      label,
      keyedJob(name, {
        dataPath: d.path,
        backend: 'level',
        parallelism: 1,
        checkpointIntervalMs: intervalMs,
      }),
      {
        ...common,
        meta: { kind: 'engine', backend: 'level', parallelism: 1, intervalMs, vs },
        timeoutMs: 15 * 60_000,
        // Both get the metrics file (a line a second), so they differ only in the checkpoints.
        extraArgs: ['--checkpoint-dir', checkpointDir, '--metrics', metrics],
        scratch: [checkpointDir, metrics],
        inspect: () => checkpointLines(metrics),
      },
    );
  };
  const rows = await measure(
    [
      cfg('cp-off', 'engine: level, parallelism 1, checkpoints off', 0),
      cfg(
        'cp-on',
        `engine: level, parallelism 1, a checkpoint every ${size.throughputIntervalMs / 1000} s`,
        size.throughputIntervalMs,
        'cp-off',
      ),
    ],
    { runs: opt.runs },
  );
  for (const r of rows) {
    const events = r.inspections.flat();
    r.checkpointStats = {
      perRun: r.inspections.map((list) => list.filter((e) => e.status === 'completed').length),
      failed: events.filter((e) => e.status !== 'completed').length,
      medianDurationMs: medianOf(events.map((e) => e.durationMs)),
      medianBytes: medianOf(events.map((e) => e.bytes)),
      medianStateBytes: medianOf(events.map((e) => e.stateBytes)),
      medianSinkBytes: medianOf(events.map((e) => e.sinkBytes)),
      maxSyncMs: Math.max(0, ...events.map((e) => e.syncMs)),
      medianSyncMs: medianOf(events.map((e) => e.syncMs)),
      fullBytes: medianOf(events.map((e) => e.fullBytes)),
    };
    delete r.inspections;
  }
  const throughput = { data: pick(d, ['records', 'keys', 'bytes']), rows: withRatios(rows) };
  if (opt.checkpointThroughputOnly) return { throughput, bySize: [], byShare: [] };
  log('checkpoints: cost against state size and changed share, recovery time');
  const state = await checkpointStateSuite(size, { entry: ENGINE_ENTRY, log });
  return { throughput, ...state };
}

/** The checkpoint lines of a --metrics file: status, duration, bytes, slowest sync phase. */
function checkpointLines(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"checkpoint"'))
    .map((l) => JSON.parse(l))
    .map((e) => ({
      id: e.id,
      status: e.status,
      durationMs: e.durationMs,
      bytes: e.bytes,
      fullBytes: e.fullBytes,
      syncMs: Math.max(0, ...(e.subtasks ?? []).map((s) => s.syncMs)),
      stateBytes: (e.subtasks ?? []).filter((s) => s.operator === 'acc').reduce((n, s) => n + s.bytes, 0),
      sinkBytes: (e.subtasks ?? []).filter((s) => s.operator === 'out').reduce((n, s) => n + s.bytes, 0),
    }));
}

function medianOf(xs) {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

function withRatios(rows) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of rows) {
    const base = r.vs ? byId.get(r.vs) : undefined;
    if (base?.rps && r.rps) r.ratio = r.rps / base.rps;
  }
  return rows;
}

function pick(o, keys) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

// ---------------------------------------------------------------------------------------
// Reporting

function fmtInt(n) {
  return Math.round(n).toLocaleString('en-US');
}

function fmtMiB(bytes) {
  return bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(2)} GiB`
    : `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

function fmtS(ms) {
  return (ms / 1000).toFixed(2);
}

function runsCell(r) {
  return r.times.map(fmtS).join(' / ');
}

/** When dist/cli/pipewright.js was last built (the engine measured), or undefined. */
function engineBuildTime() {
  try {
    return statSync(join(DIST, 'cli', 'pipewright.js'))
      .mtime.toISOString()
      .replace(/\.\d+Z$/, 'Z');
  } catch {
    return undefined;
  }
}

function machine() {
  const cpus = os.cpus();
  let classicLevel = '?';
  try {
    classicLevel = JSON.parse(
      readFileSync(join(REPO_DIR, 'node_modules', 'classic-level', 'package.json'), 'utf8'),
    ).version;
  } catch {}
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: REPO_DIR,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: REPO_DIR, encoding: 'utf8' }).trim();
    if (dirty) commit += ' + uncommitted changes';
  } catch {}
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memGiB: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    classicLevel,
    commit,
    rss: rssMethod(),
    loadAtStart: os.loadavg()[0].toFixed(2),
    engineBuilt: engineBuildTime(),
  };
}

function rowCells(r, { ratioCol = true, stateCol = false, oneThreadCol = false } = {}) {
  const failed = r.error ? `FAILED: ${r.error.replaceAll('|', '\\|')}` : undefined;
  const cells = [r.label];
  if (stateCol) cells.push(r.stateBytesPeak ? fmtMiB(r.stateBytesEnd || r.stateBytesPeak) : '—');
  cells.push(r.rps ? `**${fmtInt(r.rps)}**` : '—');
  if (ratioCol) cells.push(r.ratio ? `**${r.ratio.toFixed(2)}×**` : '');
  if (oneThreadCol) cells.push(r.ratioOneThread ? `${r.ratioOneThread.toFixed(2)}×` : '');
  cells.push(r.bestMs ? fmtS(r.bestMs) : '—', r.bestCpuMs ? fmtS(r.bestCpuMs) : '—', runsCell(r) || '—');
  cells.push(r.peakRssKb ? fmtMiB(r.peakRssKb * 1024) : '—');
  cells.push(failed ?? (r.times.length ? 'ok' : '—'));
  return `| ${cells.join(' | ')} |`;
}

/** The issue's parallel targets as measured: level, parallelism 2 on 2 threads. */
function threadTargets(rows) {
  const p2 = rows.find((r) => r.id === 'engine-level-p2-t2');
  if (!p2?.rps) return undefined;
  const fmt = (x, want) =>
    x ? `**${x.toFixed(2)}×** (target ≥ ${want}×: ${x >= want ? 'met' : 'not met'})` : '—';
  return (
    `Level, parallelism 2 on 2 threads: ${fmt(p2.ratioOneThread, 1.6)} parallelism 1 on 1 thread, ` +
    `${fmt(p2.ratio, 1.8)} the LevelDB script.`
  );
}

function report(results, opt) {
  const m = results.machine;
  const L = [];
  L.push(
    `Run of ${m.date} on ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB RAM; Node ${m.node}; ${m.os}; ` +
      `classic-level ${m.classicLevel}; commit ${m.commit}; 1-min load average ${m.loadAtStart} at the start, ` +
      `${m.loadAtEnd} at the end; took ${results.elapsedS} s` +
      `${m.engineBuilt ? `; engine: dist/ built at ${m.engineBuilt}, copied at the start` : ''}.${opt.quick ? ' **Quick mode (small inputs).**' : ''}`,
  );
  L.push('');
  if (results.engine && !results.engine.ok) {
    L.push(`**Engine rows not measured:** ${results.engine.reason}`);
    L.push('');
  }
  const k = results.keyed;
  if (k) {
    L.push(
      `### Keyed read-modify-write: ${fmtInt(k.data.records)} records, ${fmtInt(k.data.keys)} keys, value state {n, sum}`,
    );
    L.push('');
    L.push(
      '| implementation | records/s (best) | vs baseline | vs parallelism 1, 1 thread | best s | its CPU s | runs s | peak RSS | output |',
    );
    L.push('| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |');
    for (const r of k.rows) L.push(rowCells(r, { oneThreadCol: true }));
    L.push('');
    L.push(
      'Engine memory rows are compared with the Map script, engine level rows with the LevelDB script ' +
        '(one batch in flight); the awaited-batches script is compared with the one-in-flight script. ' +
        '"vs parallelism 1, 1 thread": against the engine row of the same backend at parallelism 1 on one thread ' +
        '(`--threads 1`, the deterministic executor). Targets: engine parallelism 1 ≥ 0.80× on both backends; ' +
        'level, parallelism 2 on 2 threads ≥ 1.6× parallelism 1 on 1 thread and ≥ 1.8× the LevelDB script.',
    );
    const target = threadTargets(k.rows);
    if (target) L.push('', target);
    L.push('');
    L.push(...profileTable(k.rows));
  }
  if (results.flink) L.push(...flinkReport(results.flink));
  const a = results.awaited;
  if (a) {
    L.push(
      `### Awaited get/put per record vs getSync + batches: ${fmtInt(a.data.records)} records, ${fmtInt(a.data.keys)} keys`,
    );
    L.push('');
    L.push(
      '| implementation | records/s (best) | vs batched | best s | its CPU s | runs s | peak RSS | output |',
    );
    L.push('| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |');
    for (const r of a.rows) L.push(rowCells(r));
    const [batched, awaited] = a.rows;
    if (batched?.rps && awaited?.rps) {
      L.push('');
      L.push(
        `The batched script is **${(batched.rps / awaited.rps).toFixed(1)}×** faster on the same input.`,
      );
    }
    L.push('');
  }
  const g = results.large;
  if (g) {
    L.push(
      `### Large state: ${fmtInt(g.data.records)} FooAdded records over ${g.data.bars} bars, ` +
        `${g.data.payloadChars}-char payloads (input ${fmtMiB(g.data.bytes)}), node --max-old-space-size=256`,
    );
    L.push('');
    L.push(
      '| implementation | state on disk | records/s (best) | best s | its CPU s | runs s | peak RSS | output |',
    );
    L.push('| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |');
    for (const r of g.rows) L.push(rowCells(r, { ratioCol: false, stateCol: true }));
    L.push('');
    L.push(
      'State on disk: the size of the state directory when the run ended (its peak while running when the ' +
        'engine removes it at exit). Peak RSS: the largest of the runs.',
    );
    L.push('');
    L.push(...profileTable(g.rows));
  }
  const u = results.usercall;
  if (u) {
    L.push(
      `### User-code call cost (\`function map(record, ctx) { return record.v + 1; }\`, best of 5 × ${fmtInt(u.calls ?? 0)} calls)`,
    );
    L.push('');
    if (u.error) L.push(`FAILED: ${u.error}`);
    else {
      L.push('| function | ns/call |');
      L.push('| --- | ---: |');
      L.push(`| plain function (after lockdown) | ${u.plainNs} |`);
      L.push(
        u.engine.ns !== undefined
          ? `| engine: compileUserCode (SES Compartment) | **${u.engine.ns}** |`
          : `| engine: compileUserCode | TODO: ${u.engine.todo} |`,
      );
      L.push(`| reference: bare SES Compartment, no endowments | ${u.sesNs} |`);
      if (u.builtins !== undefined) {
        L.push('');
        L.push('Using built-ins (`Math.max(record.v, JSON.stringify(record.v).length)`):');
        L.push('');
        L.push('| function | ns/call |');
        L.push('| --- | ---: |');
        L.push(`| plain function (after lockdown) | ${u.builtins.plainNs} |`);
        if (u.builtins.engineNs !== undefined)
          L.push(`| engine: compileUserCode (built-ins bound as constants) | **${u.builtins.engineNs}** |`);
        L.push(
          `| reference: bare SES Compartment (built-ins looked up through its scope) | ${u.builtins.sesNs} |`,
        );
      }
      if (u.engine.compileUs !== undefined)
        L.push('', `compileUserCode: ${u.engine.compileUs} µs a function.`);
    }
    L.push('');
  }
  if (results.transport) L.push(...transportReport(results.transport));
  if (results.checkpoints) L.push(...checkpointsReport(results.checkpoints));
  if (results.stepback) L.push(...stepBackReport(results.stepback));
  if (results.designer) L.push(...designerReport(results.designer));
  if (results.eventtime) L.push(...eventTimeReport(results.eventtime));
  if (results.transactions) L.push(...transactionReport(results.transactions));
  if (results.loops) L.push(...loopReport(results.loops));
  if (results.connectors) L.push(...connectorReport(results.connectors));
  return L.join('\n');
}

function fmtMs(ms) {
  if (ms === undefined) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

function fmtBytes(bytes) {
  if (bytes === undefined) return '—';
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 10 * 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

function fmtShare(x) {
  const pct = x * 100;
  return `${pct >= 1 ? pct.toFixed(0) : pct.toFixed(1)}%`;
}

function stepBackReport(rows) {
  const L = ['### Debugger step back (`DebugSession.stepBack()`, target < 300 ms at 10 MB of state)', ''];
  if (rows.error) return [...L, `**Not measured:** ${rows.error}`, ''];
  L.push(
    '| run | state | step back: median | min / max (runs) | replays from the start | one step forward: median | open the job | open + step to the same place |',
  );
  L.push('| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    if (r.error) {
      L.push(`| ${r.name ?? '?'} | FAILED: ${String(r.error).replaceAll('|', '\\|')} | | | | | | |`);
      continue;
    }
    const b = r.baseline ?? {};
    L.push(
      `| ${r.name} | ${fmtBytes(r.stateBytes)} (${fmtInt(r.stateEntries)} entries) | **${fmtMs(r.stepBackMs.median)}** | ` +
        `${fmtMs(r.stepBackMs.min)} / ${fmtMs(r.stepBackMs.max)} (${r.stepBackMs.runs}) | ${r.replaysFromStart} | ` +
        `${fmtMs(b.stepForwardMs?.median)} | ${fmtMs(b.openMs)} | ${fmtMs(b.openAndStepToTheStepBeforeMs)} |`,
    );
  }
  L.push('');
  L.push(
    'Each step back is timed from the call to the view of the step before; the baselines are measured in the same child ' +
      'process: one step forward, opening the job, and opening it and stepping to the same place (what a replay from the ' +
      'start costs at least). See bench/stepBack.mjs for the job.',
  );
  L.push('');
  return L;
}

function designerReport(d) {
  const L = [
    `### Designer (a generated ${d.operators ?? 500}-operator job; targets: validation < 10 ms, first render < 1 s)`,
    '',
  ];
  if (d.error) return [...L, `**Not measured:** ${d.error}`, ''];
  const v = d.validation;
  L.push('| measurement | 500 operators: median | min / p95 | 3 operators: median | ratio |');
  L.push('| --- | ---: | --- | ---: | ---: |');
  L.push(
    `| validateJob (the engine's validator, in Node) | **${fmtMs(v.big.validate.median)}** | ${fmtMs(v.big.validate.min)} / ${fmtMs(v.big.validate.p95)} | ` +
      `${fmtMs(v.small.validate.median)} | ${(v.big.validate.median / v.small.validate.median).toFixed(0)}× |`,
  );
  L.push(
    `| JSON.parse of the same text (floor) | ${fmtMs(v.big.parse.median)} | ${fmtMs(v.big.parse.min)} / ${fmtMs(v.big.parse.p95)} | ` +
      `${fmtMs(v.small.parse.median)} | |`,
  );
  if (d.render) {
    const r = d.render;
    L.push(
      `| first render in Chromium (navigation start to the job drawn) | **${fmtMs(r.big.firstRenderMs.median)}** | ` +
        `${fmtMs(r.big.firstRenderMs.min)} / ${fmtMs(r.big.firstRenderMs.max)} | ${fmtMs(r.small.firstRenderMs.median)} | ` +
        `${(r.big.firstRenderMs.median / r.small.firstRenderMs.median).toFixed(2)}× |`,
    );
    L.push(
      `| panning: 95th percentile frame time (median of runs) | ${fmtMs(r.big.framesP95Ms.median)} | | ${fmtMs(r.small.framesP95Ms.median)} | ` +
        `${(r.big.framesP95Ms.median / r.small.framesP95Ms.median).toFixed(2)}× |`,
    );
    L.push(
      `| panning: longest frame (median of runs) | ${fmtMs(r.big.framesMaxMs.median)} | | ${fmtMs(r.small.framesMaxMs.median)} | |`,
    );
  } else {
    L.push('| first render in Chromium | not measured: no Chromium found | | | |');
  }
  L.push('');
  L.push(
    'First render: the browser form opened with the job as its file, in headless Chromium without a GPU ' +
      '(`--disable-gpu`), each run in a fresh browser context, timed from navigation start to the first ' +
      'animation frame at which every operator is visible and every edge drawn (noted by a script in the ' +
      'page itself, not by Playwright polling). Frame times are software rendering and pessimistic; a frame is 16.7 ms at 60 Hz. ' +
      'Panning: 60 mouse moves dragging the canvas, frame intervals from requestAnimationFrame.',
  );
  L.push('');
  return L;
}

function checkpointsReport(c) {
  const L = ['### Checkpoints', ''];
  if (c.error) return [...L, `**Not measured:** ${c.error}`, ''];
  const t = c.throughput;
  L.push(
    `#### Throughput with checkpoints: keyed read-modify-write, ${fmtInt(t.data.records)} records, ` +
      `${fmtInt(t.data.keys)} keys, level, parallelism 1`,
  );
  L.push('');
  L.push('| implementation | records/s (best) | vs off | best s | its CPU s | runs s | peak RSS | output |');
  L.push('| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |');
  for (const r of t.rows) L.push(rowCells(r));
  L.push('');
  const on = t.rows.find((r) => r.id === 'cp-on');
  const st = on?.checkpointStats;
  if (st) {
    L.push(
      `Checkpoints completed per run: ${st.perRun.join(' / ')}${st.failed ? `; **${st.failed} failed**` : ', none failed'}. ` +
        `Per checkpoint, over all runs: median ${fmtMs(st.medianDurationMs)}; median ${fmtBytes(st.medianBytes)} written ` +
        `(of which keyed state ${fmtBytes(st.medianStateBytes)} and the sink's part file ${fmtBytes(st.medianSinkBytes)}, ` +
        `medians; the whole state is ${fmtBytes(st.fullBytes)}); sync phase median ${fmtMs(st.medianSyncMs)}, at most ${fmtMs(st.maxSyncMs)}. ` +
        'Target: with checkpoints ≥ 0.90× of without.',
    );
    L.push('');
  }
  // --checkpoint-throughput-only measured the throughput row alone.
  if (c.bySize.length === 0 && c.byShare.length === 0) return L;
  const later = c.bySize.find((r) => r.steady)?.steady?.later?.length ?? 0;
  L.push(
    `#### Cost against state size: ${fmtInt(c.valueChars)}-character values, ${fmtShare(c.bySize[0]?.share ?? 0)} of the keys ` +
      `updated once per ${(c.bySize[0]?.intervalMs ?? 0) / 1000} s interval`,
  );
  L.push('');
  L.push(
    '| state (keys) | LevelDB on disk | first checkpoint (full base): time | written | sync | ' +
      `later checkpoints (median of ${later}): time | written | sync | records per interval | recovery (runs) |`,
  );
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of c.bySize) {
    const label = `${fmtBytes(r.steady?.first?.fullBytes ?? r.load?.stopBase?.fullBytes)} (${fmtInt(r.keys)})`;
    if (r.error && !r.steady) {
      L.push(`| ${label} | FAILED: ${r.error.replaceAll('|', '\\|')} | | | | | | | | |`);
      continue;
    }
    const f = r.steady.first;
    const m = r.steady.laterMedian;
    const rec = r.recovery ?? [];
    const recCell = rec.length
      ? `**${(Math.min(...rec.map((x) => x.ms)) / 1000).toFixed(2)} s** (${rec.map((x) => (x.ms / 1000).toFixed(2)).join(' / ')})`
      : `FAILED: ${r.error ?? '?'}`;
    L.push(
      `| ${label} | ${fmtBytes(r.load.stateOnDisk)} | **${fmtMs(f.durationMs)}** | ${fmtBytes(f.bytes)} | ${fmtMs(f.syncMs)} | ` +
        `**${fmtMs(m.durationMs)}** | ${fmtBytes(m.bytes)} | ${fmtMs(m.syncMs)} | ${fmtInt(m.records ?? 0)} | ${recCell} |`,
    );
  }
  L.push('');
  const ok = c.bySize.filter((r) => r.steady?.first && r.steady.laterMedian.durationMs);
  if (ok.length) {
    L.push(
      'Ratios: ' +
        ok
          .map((r) => {
            const f = r.steady.first;
            const m = r.steady.laterMedian;
            return (
              `${fmtBytes(f.fullBytes)}: base ${((f.durationMs / 1000) * (1024 ** 3 / f.fullBytes)).toFixed(1)} s per GiB, ` +
              `a later checkpoint writes ${fmtShare(m.bytes / f.fullBytes)} of the state in ${((m.durationMs / f.durationMs) * 100).toFixed(1)}% of the base's time`
            );
          })
          .join('; ') +
        '.',
    );
    L.push('');
  }
  L.push(
    `Recovery: \`--restore latest\` after a kill -9 that followed the ${later + 1}th checkpoint of the run above ` +
      `(its base plus ${later} changes files), into a run with ${fmtInt(c.recoverTail)} records left to read; ` +
      'timed from spawn to exit, output checked against the restored state.',
  );
  L.push('');
  L.push(
    `#### Cost against the share changed: ${fmtBytes(c.byShare.find((r) => r.steady)?.steady?.first?.fullBytes)} ` +
      `(${fmtInt(c.shareKeys)} keys), one checkpoint per ${c.shareIntervalMs / 1000} s`,
  );
  L.push('');
  L.push(
    '| keys changed per interval | records per interval (measured) | later checkpoints: time (median) | written | ' +
      'written / state | sync | new bases among them | first checkpoint (base): time |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of c.byShare) {
    if (r.error && !r.steady) {
      L.push(
        `| ${r.share === undefined ? '?' : fmtShare(r.share)} | FAILED: ${r.error.replaceAll('|', '\\|')} | | | | | | |`,
      );
      continue;
    }
    const m = r.steady.laterMedian;
    const full = r.steady.first?.fullBytes;
    L.push(
      `| ${fmtShare(r.share)} (${fmtInt(r.workingSet)}) | ${fmtInt(m.records ?? 0)} | **${fmtMs(m.durationMs)}** | ` +
        `${fmtBytes(m.bytes)} | ${full ? fmtShare(m.bytes / full) : '—'} | ${fmtMs(m.syncMs)} | ` +
        `${m.bases} of ${r.steady.later.length} | ${fmtMs(r.steady.first?.durationMs)} |`,
    );
  }
  L.push('');
  L.push(
    "Times are each checkpoint's `durationMs` (trigger to completion, metadata written and fsynced), " +
      '"written" its `bytes`, "sync" the largest `syncMs` of its subtasks; one run per row.',
  );
  L.push('');
  return L;
}

/** The suite each `### ` section of the results comes from, by how its title starts. */
const SECTION_SUITES = [
  ['### Keyed read-modify-write', 'keyed'],
  ['### Apache Flink', 'flink'],
  ['### Awaited get/put', 'awaited'],
  ['### Large state', 'large'],
  ['### User-code call cost', 'usercall'],
  ['### Cross-thread transport', 'transport'],
  ['### Checkpoints', 'checkpoints'],
  ['### Debugger step back', 'stepback'],
  ['### Designer', 'designer'],
  ['### Event time', 'eventtime'],
  ['### Transactions', 'transactions'],
  ['### Connectors', 'connectors'],
  ['### Loops', 'loops'],
];

/** The results as their header (the run's line) and their sections, each with its suite. */
function splitResults(text) {
  const lines = text.split('\n');
  const header = [];
  const sections = [];
  for (const line of lines) {
    const suite = line.startsWith('### ')
      ? SECTION_SUITES.find(([start]) => line.startsWith(start))?.[1]
      : undefined;
    if (suite !== undefined) sections.push({ suite, lines: [line] });
    else if (sections.length > 0) sections.at(-1).lines.push(line);
    else header.push(line);
  }
  return { header: header.join('\n').trim(), sections };
}

/**
 * A run of some suites replaces their sections only: the others stay as the run that made them
 * wrote them. Each replaced section starts with the line of the run it comes from.
 */
function mergeResults(old, table, opt) {
  const fresh = splitResults(table);
  const before = splitResults(old);
  if (before.sections.length === 0) return table;
  const runLine = fresh.header
    .replace(/^Run of /, 'This section: run of ')
    .replace(/\.$/, ` (\`node bench/run.mjs --only ${opt.only.join(',')}\`).`);
  const replaced = new Map(
    fresh.sections.map((s) => [s.suite, [s.lines[0], '', runLine, ...s.lines.slice(1)]]),
  );
  const sections = before.sections.map((s) => replaced.get(s.suite) ?? s.lines);
  for (const s of fresh.sections) {
    if (!before.sections.some((b) => b.suite === s.suite)) sections.push(replaced.get(s.suite));
  }
  return [before.header, '', ...sections.map((lines) => `${lines.join('\n').trimEnd()}\n`)].join('\n');
}

function writeDocs(table, opt) {
  if (!existsSync(DOCS)) {
    log(`bench: ${DOCS} is missing; results not written there`);
    return;
  }
  const text = readFileSync(DOCS, 'utf8');
  const i = text.indexOf(START);
  const j = text.indexOf(END);
  if (i < 0 || j < i) {
    log(`bench: ${DOCS} has no ${START} ... ${END} block; results not written there`);
    return;
  }
  const results = opt.onlyGiven ? mergeResults(text.slice(i + START.length, j), table, opt) : table;
  writeFileSync(DOCS, `${text.slice(0, i + START.length)}\n${results.trimEnd()}\n\n${text.slice(j)}`);
  log(
    `bench: results written to ${DOCS}${opt.onlyGiven ? ` (the sections of ${opt.only.join(', ')} only)` : ''}`,
  );
}

// ---------------------------------------------------------------------------------------

async function main() {
  const opt = parseCli(process.argv.slice(2));
  PROFILE.on = opt.profile === true;
  const sizes = opt.quick ? SIZES.quick : SIZES.full;
  const t0 = Date.now();
  dirs();
  if (opt.build) {
    log('bench: npm run build');
    const b = spawnSync('npm', ['run', 'build'], { cwd: REPO_DIR, stdio: 'inherit' });
    if (b.status !== 0) log('bench: the build failed; engine rows will say why the engine cannot run');
  }
  const results = { machine: machine(), quick: opt.quick };
  snapshotEngine(); // right after reading the build time, before anything runs
  const wantsEngine = opt.only.some((s) =>
    ['keyed', 'flink', 'large', 'checkpoints', 'eventtime', 'transactions', 'connectors', 'loops'].includes(
      s,
    ),
  );
  if (wantsEngine) {
    results.engine = await engineStatus();
    log(
      results.engine.ok
        ? 'bench: the engine runs a job; measuring it'
        : `bench: engine not measured: ${results.engine.reason}`,
    );
  }
  if (opt.only.includes('keyed')) results.keyed = await keyedSuite(sizes.keyed, opt, results.engine);
  if (opt.only.includes('flink')) {
    // Pipewright's side: the keyed suite's rows when it ran just before, else measured with Flink's.
    results.flink = await flinkSuite(sizes.keyed, opt, {
      measure,
      verifyOutput,
      log,
      outDir: OUT_DIR,
      stateDir: STATE_DIR,
      engineRows: results.keyed?.rows,
      // The native rows' pairs; level at parallelism 4 too, the runner's at 4.
      engineConfigs: (d) =>
        results.engine.ok
          ? [
              ...['memory', 'level'].flatMap((b) => [1, 2].map((p) => keyedEngineConfig(d, b, p, p))),
              keyedEngineConfig(d, 'level', 4, 4),
            ]
          : [],
      // The runner rows: the keyed suite's job, from the copy of dist/ the engine rows run.
      engineOk: results.engine.ok,
      engineEntry: ENGINE_ENTRY,
      jobsDir: JOBS_DIR,
      keyedJob,
    });
  }
  if (opt.only.includes('awaited')) results.awaited = await awaitedSuite(sizes.awaited, opt);
  if (opt.only.includes('large')) results.large = await largeSuite(sizes.large, opt, results.engine);
  if (opt.only.includes('usercall')) results.usercall = await usercallSuite(sizes.usercallCalls);
  if (opt.only.includes('transport')) results.transport = await transportSuite({ quick: opt.quick, log });
  if (opt.only.includes('checkpoints')) {
    results.checkpoints = await checkpointsSuite(sizes.checkpoints, opt, results.engine);
  }
  if (opt.only.includes('stepback')) {
    results.stepback = await stepBackSuite({ engineDist: SNAPSHOT, quick: opt.quick, log }).catch((e) => ({
      error: e.message,
    }));
  }
  if (opt.only.includes('designer')) {
    results.designer = await designerSuite({ quick: opt.quick }).catch((e) => ({ error: e.message }));
  }
  // What the suites that run engine jobs beside scripts are given.
  const suiteContext = {
    measure,
    verifyOutput,
    log,
    engine: results.engine,
    engineEntry: ENGINE_ENTRY,
    jobsDir: JOBS_DIR,
    outDir: OUT_DIR,
    stateDir: STATE_DIR,
  };
  if (opt.only.includes('eventtime')) {
    results.eventtime = await eventTimeSuite(
      EVENT_TIME_SIZES[opt.quick ? 'quick' : 'full'],
      opt,
      suiteContext,
    );
  }
  if (opt.only.includes('transactions')) {
    results.transactions = await transactionSuite(
      TRANSACTION_SIZES[opt.quick ? 'quick' : 'full'],
      opt,
      suiteContext,
    );
  }
  if (opt.only.includes('connectors')) {
    results.connectors = await connectorSuite(
      CONNECTOR_SIZES[opt.quick ? 'quick' : 'full'],
      opt,
      suiteContext,
    );
  }
  if (opt.only.includes('loops')) {
    results.loops = await loopSuite(LOOP_SIZES[opt.quick ? 'quick' : 'full'], opt, suiteContext);
  }
  results.elapsedS = Math.round((Date.now() - t0) / 1000);
  results.machine.loadAtEnd = os.loadavg()[0].toFixed(2);

  writeFileSync(join(WORK_DIR, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const table = report(results, opt);
  process.stdout.write(`\n${table}\n`);
  log(`bench: done in ${results.elapsedS} s; raw results in bench/.work/results.json`);
  if (opt.docs) writeDocs(table, opt);
}

await main();
