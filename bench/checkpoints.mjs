// The checkpoints suite, parts 1-3 (see docs/benchmarks.md, "Checkpoints"): what a checkpoint
// costs against the size of the keyed state and against the share of it changed between two
// checkpoints, and how long a restore takes. Part 4 (throughput with checkpoints on and off)
// runs in bench/run.mjs with the other whole-job measurements.
//
// The state: N keys, each holding {n, p} where p is a 1000-character string (base64-alphabet
// slices at random offsets of a 1 MiB pseudo-random pool, so LevelDB's snappy cannot shrink it),
// about 1 KiB of JSON per key. Records come from a source.generator, so there is no input file
// to write or read:
//   i < N            loads key k<i>
//   i >= N           updates key k<i mod W> (W = the working set), with a new p
// A `process` operator keyed by k reads the key's value, sets {n: n + 1, p}, and emits {k, n}
// only for records flagged c (only in the recovery runs, to check the restored state).
//
// Per state size:
//   A. load:    the generator loads the N keys, then emits nothing (returns null) while the run
//               waits; checkpointIntervalMs is a day, so none is taken during the load. When the
//               metrics file shows N records in, SIGTERM: the engine takes one checkpoint (a full
//               base of exactly the loaded state) and exits 0. That checkpoint directory is kept.
//   B. steady:  a copy of it is restored (--restore latest) into the job with checkpoints every
//               intervalMs and the generator rate-limited to W records per interval, so that each
//               interval touches each key of the working set once. The first checkpoint of a run
//               is a full base (a restored run has no base of its own yet); the later ones hold
//               what changed. After `later` of them have completed, kill -9.
//   C. recover: --restore latest (the last checkpoint B completed: its base and its changes)
//               into the same job with the generator bounded to the checkpoint's position plus
//               RECOVER_TAIL records, which are flagged c; timed from spawn to exit. The output
//               ({k, n} for those records) must match n computed here, so the restored state is
//               checked, not only timed.
import { spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { digestJsonl, MultisetDigest, WORK_DIR } from './data.mjs';
import { clean, dirBytes, REPO_DIR, runTimed, writeJob } from './engineRun.mjs';

export const VALUE_CHARS = 1000;
/** Records of the recovery run after the restored position (flagged, so they are checked). */
export const RECOVER_TAIL = 1000;
/**
 * The load run's generator rate: once the keys are loaded it returns null for every index, and
 * unthrottled it would spin through them, starving the asynchronous part of the checkpoint the
 * SIGTERM takes (a 100 MB base took 6.8 s instead of 1 s). 25,600/s is also what the engine
 * gives any ratePerSec above it (256 records per 10 ms step), about what it loads 1 GB at.
 */
const LOAD_RATE = 25_600;
/** A day: no periodic checkpoint during a load run, only the one a SIGTERM takes. */
const NO_INTERVAL_MS = 86_400_000;

const JOBS_DIR = join(WORK_DIR, 'jobs');
const OUT_DIR = join(WORK_DIR, 'out');
const CP_DIR = join(WORK_DIR, 'state', 'checkpoints-suite');

export const CP_PROCESS_CODE =
  "function process(r, ctx) { const s = ctx.state.value('v'); const a = s.get(); " +
  'const n = a === undefined ? 1 : a.n + 1; s.set({ n, p: r.p }); if (r.c === 1) ctx.emit({ k: r.k, n }); }';

/**
 * The generator's code. `loadOnly`: null for every i >= N (the load run). `checkFrom`: records
 * from this index on carry c: 1 (the recovery run).
 */
function generatorCode({ keys, workingSet, loadOnly, checkFrom }) {
  return [
    `const N = ${keys}, W = ${workingSet}, V = ${VALUE_CHARS}, LOAD_ONLY = ${loadOnly}, CHECK_FROM = ${checkFrom ?? 'Infinity'};`,
    "const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';",
    'let x = 2463534242; const parts = [];',
    'for (let i = 0; i < 1048576; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; parts.push(A[(x >>> 0) & 63]); }',
    "const POOL = parts.join('');",
    'function generate(i, ctx) {',
    '  const o = Math.floor(ctx.random() * (POOL.length - V));',
    "  if (i < N) return { k: 'k' + i, p: POOL.slice(o, o + V) };",
    '  if (LOAD_ONLY) return null;',
    "  const r = { k: 'k' + (i % W), p: POOL.slice(o, o + V) };",
    '  if (i >= CHECK_FROM) r.c = 1;',
    '  return r;',
    '}',
  ].join('\n');
}

function cpJob(name, { keys, workingSet, loadOnly = false, checkFrom, count, ratePerSec, intervalMs }) {
  const params = { code: generatorCode({ keys, workingSet, loadOnly, checkFrom }), seed: 1 };
  if (count !== undefined) params.count = count;
  if (ratePerSec !== undefined) params.ratePerSec = ratePerSec;
  return {
    format: 'pipewright.job/1',
    name,
    settings: {
      maxParallelism: 128,
      stateBackend: 'level',
      checkpointIntervalMs: intervalMs,
      checkpointsRetained: 1000,
    },
    operators: [
      { id: 'src', kind: 'source.generator', parallelism: 1, params },
      { id: 'acc', kind: 'process', parallelism: 1, params: { code: CP_PROCESS_CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: `../out/${name}.jsonl` } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'acc', to: 'out', partition: 'forward' },
    ],
  };
}

/**
 * Spawns `node args` and follows the JSON lines of its metrics file (every 50 ms) while it runs;
 * `onLine(line, child)` may signal the child. Resolves { ms, code, signal, stderr, timedOut }.
 */
function runWatched(args, { metricsPath, onLine, timeoutMs }) {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr = (stderr + c).slice(-65536);
    });
    let offset = 0;
    let partial = '';
    const buffer = Buffer.alloc(1 << 20);
    const poll = () => {
      if (!existsSync(metricsPath)) return;
      const fd = openSync(metricsPath, 'r');
      try {
        for (;;) {
          const n = readSync(fd, buffer, 0, buffer.length, offset);
          if (n === 0) break;
          offset += n;
          partial += buffer.toString('utf8', 0, n);
        }
      } finally {
        closeSync(fd);
      }
      const lines = partial.split('\n');
      partial = lines.pop();
      for (const line of lines) if (line.trim()) onLine(JSON.parse(line), child);
    };
    const timer = setInterval(poll, 50);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearInterval(timer);
      clearTimeout(deadline);
      reject(e);
    });
    child.on('close', (code, signal) => {
      const ms = performance.now() - t0;
      clearInterval(timer);
      clearTimeout(deadline);
      poll();
      resolvePromise({ ms, code, signal, stderr: stderr.trim(), timedOut });
    });
  });
}

function firstLine(s) {
  return (
    (
      String(s ?? '')
        .trim()
        .split('\n')[0] ?? ''
    ).slice(0, 300) || '(no message)'
  );
}

/** What a checkpoint's metrics line says, with the sync phase as the slowest subtask's. */
function summarize(event) {
  const acc = event.subtasks?.find((s) => s.operator === 'acc');
  return {
    id: event.id,
    status: event.status,
    reason: event.reason,
    durationMs: event.durationMs,
    bytes: event.bytes,
    fullBytes: event.fullBytes,
    syncMs: Math.max(0, ...(event.subtasks ?? []).map((s) => s.syncMs)),
    stateBytes: acc?.bytes,
    stateAsyncMs: acc?.asyncMs,
  };
}

/** From the checkpoint's metadata: the generator's position, and whether it took a new base. */
function readMetadata(checkpointDir, id) {
  const path = join(checkpointDir, `chk-${id}.json`);
  if (!existsSync(path)) return {};
  const m = JSON.parse(readFileSync(path, 'utf8'));
  const src = m.subtasks.find((s) => s.operator === 'src');
  const acc = m.subtasks.find((s) => s.operator === 'acc');
  return {
    // Since format 3: a split is connector state, the generator's { next, stride } its payload.
    next: src?.splits?.[0]?.payload?.next,
    base: acc?.state?.base?.path?.split('/').pop().startsWith(`base-${id}.`) ?? false,
  };
}

function median(xs) {
  const v = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

function engineArgs(entry, jobPath, { stateDir, checkpointDir, metrics, restore }) {
  // Its jobs write ../out, outside their folder: they are our own (docs/security.md).
  const args = [
    entry,
    'run',
    jobPath,
    '--quiet',
    '--trust',
    '--state-dir',
    stateDir,
    '--checkpoint-dir',
    checkpointDir,
  ];
  if (metrics) args.push('--metrics', metrics);
  if (restore) args.push('--restore', restore);
  return args;
}

/** Run A: loads `keys` keys and stops with one checkpoint, a full base; returns its directory. */
async function loadRun(entry, keys, log) {
  const name = `cp-load-k${keys}`;
  const home = join(CP_DIR, name);
  clean(home);
  mkdirSync(home, { recursive: true });
  const jobPath = writeJob(
    join(JOBS_DIR, `${name}.job.json`),
    cpJob(name, { keys, workingSet: 1, loadOnly: true, ratePerSec: LOAD_RATE, intervalMs: NO_INTERVAL_MS }),
  );
  const stateDir = join(home, 'state');
  const checkpointDir = join(home, 'checkpoints');
  const metrics = join(home, 'metrics.jsonl');
  let loadedAtMs;
  const events = [];
  const res = await runWatched(engineArgs(entry, jobPath, { stateDir, checkpointDir, metrics }), {
    metricsPath: metrics,
    timeoutMs: 20 * 60_000,
    onLine: (line, child) => {
      if (line.type === 'checkpoint') events.push(summarize(line));
      if (line.type !== 'metrics' || loadedAtMs !== undefined) return;
      const acc = line.operators.find((o) => o.id === 'acc');
      if (acc && acc.recordsIn >= keys) {
        loadedAtMs = line.elapsedMs;
        child.kill('SIGTERM');
      }
    },
  });
  if (res.code !== 0 || res.timedOut) {
    throw new Error(
      `load run of ${keys} keys: ${res.timedOut ? 'timed out' : `exit ${res.code ?? res.signal}`}: ${firstLine(res.stderr)}`,
    );
  }
  const base = events.find((e) => e.status === 'completed');
  if (!base) throw new Error(`load run of ${keys} keys: no checkpoint completed at the SIGTERM`);
  const meta = readMetadata(checkpointDir, base.id);
  const stateOnDisk = dirBytes(stateDir);
  clean(stateDir);
  log(
    `  load ${fmtKeys(keys)}: state ${mib(base.fullBytes)}, loaded in ≈${s(loadedAtMs)} s (1 s resolution), ` +
      `base at the stop ${s(base.durationMs)} s, run ${s(res.ms)} s`,
  );
  return {
    checkpointDir,
    baseId: base.id,
    next: meta.next,
    loadedAtMs,
    stopBase: base,
    stateOnDisk,
    ms: res.ms,
  };
}

/**
 * Run B: restores a copy of the loaded checkpoint, checkpoints every `intervalMs` with the
 * generator touching `workingSet` keys per interval, kill -9 after `later` checkpoints past the
 * first. Returns the checkpoints and the directory to recover from.
 */
async function steadyRun(entry, load, { keys, workingSet, intervalMs, later, tag, log }) {
  const name = `cp-run-k${keys}-${tag}`;
  const home = join(CP_DIR, name);
  clean(home, join(OUT_DIR, `${name}.jsonl`));
  mkdirSync(home, { recursive: true });
  const checkpointDir = join(home, 'checkpoints');
  cpSync(load.checkpointDir, checkpointDir, { recursive: true });
  const ratePerSec = (workingSet * 1000) / intervalMs;
  const job = cpJob(name, { keys, workingSet, ratePerSec, intervalMs });
  const jobPath = writeJob(join(JOBS_DIR, `${name}.job.json`), job);
  const stateDir = join(home, 'state');
  const metrics = join(home, 'metrics.jsonl');
  const events = [];
  const res = await runWatched(
    engineArgs(entry, jobPath, { stateDir, checkpointDir, metrics, restore: 'latest' }),
    {
      metricsPath: metrics,
      timeoutMs: 20 * 60_000,
      onLine: (line, child) => {
        if (line.type !== 'checkpoint') return;
        events.push(summarize(line));
        if (events.filter((e) => e.status === 'completed').length >= later + 1) child.kill('SIGKILL');
      },
    },
  );
  if (res.timedOut) throw new Error(`steady run ${name}: timed out; ${events.length} checkpoints`);
  if (res.signal !== 'SIGKILL') {
    throw new Error(
      `steady run ${name}: exit ${res.code ?? res.signal} before it was killed: ${firstLine(res.stderr)}`,
    );
  }
  let previousNext = load.next;
  for (const e of events) {
    Object.assign(e, readMetadata(checkpointDir, e.id));
    if (e.next !== undefined) {
      e.records = e.next - previousNext;
      previousNext = e.next;
    }
  }
  const completed = events.filter((e) => e.status === 'completed');
  const [first, ...rest] = completed;
  const summary = {
    name,
    keys,
    workingSet,
    intervalMs,
    ratePerSec,
    failed: events.filter((e) => e.status !== 'completed').map((e) => e.reason),
    first,
    later: rest,
    laterMedian: {
      durationMs: median(rest.map((e) => e.durationMs)),
      bytes: median(rest.map((e) => e.bytes)),
      stateBytes: median(rest.map((e) => e.stateBytes)),
      syncMs: median(rest.map((e) => e.syncMs)),
      records: median(rest.map((e) => e.records)),
      bases: rest.filter((e) => e.base).length,
    },
    killedAfterMs: res.ms,
    last: completed.at(-1),
  };
  clean(stateDir);
  log(
    `  steady ${name}: first ${s(first?.durationMs)} s ${mib(first?.bytes)}, later median ` +
      `${ms(summary.laterMedian.durationMs)} ms ${mib(summary.laterMedian.bytes)} sync ${ms(summary.laterMedian.syncMs)} ms, ` +
      `${fmt(summary.laterMedian.records)} records/interval, ${summary.laterMedian.bases} bases; killed after ${s(res.ms)} s`,
  );
  return { summary, checkpointDir, home };
}

/**
 * Run C: --restore latest from what the steady run left, with RECOVER_TAIL records to go;
 * timed from spawn to exit, output checked. Returns { ms, cpuMs, peakRssKb } or throws.
 */
async function recoverRun(entry, load, steady, { keys, workingSet, log, attempt }) {
  const last = steady.summary.last;
  const from = last.next;
  const name = `cp-recover-k${keys}`;
  const out = join(OUT_DIR, `${name}.jsonl`);
  const stateDir = join(steady.home, 'recover-state');
  clean(out, stateDir);
  const job = cpJob(name, {
    keys,
    workingSet,
    checkFrom: from,
    count: from + RECOVER_TAIL,
    intervalMs: NO_INTERVAL_MS,
  });
  // The sink's path is the job's own: publish the restored checkpoint's (empty) parts there.
  const jobPath = writeJob(join(JOBS_DIR, `${name}.job.json`), job);
  const res = await runTimed(
    process.execPath,
    engineArgs(entry, jobPath, { stateDir, checkpointDir: steady.checkpointDir, restore: 'latest' }),
    { timeoutMs: 10 * 60_000 },
  );
  if (res.code !== 0)
    throw new Error(`recovery run: exit ${res.code ?? res.signal}: ${firstLine(res.stderr)}`);
  // Expected: record i updates key j = i mod W; its n is 1 (the load) plus the updates of j
  // from the steady run's first index up to i.
  const expected = new MultisetDigest();
  const count = (a, b, j) => Math.floor((b - j) / workingSet) - Math.floor((a - 1 - j) / workingSet);
  for (let i = from; i < from + RECOVER_TAIL; i++) {
    const j = i % workingSet;
    expected.add(`k${j}\u0000${1 + count(load.next, i, j)}`);
  }
  const got = existsSync(out) ? await digestJsonl(out, (o) => `${o.k}\u0000${o.n}`) : 'no output';
  if (got !== expected.toString()) {
    throw new Error(
      `recovery run: output differs from the restored checkpoint's state (${got.split(':')[0]} lines, expected ${RECOVER_TAIL})`,
    );
  }
  clean(stateDir);
  log(
    `  recover ${fmtKeys(keys)} (attempt ${attempt}): ${s(res.ms)} s, peak RSS ${mib(res.peakRssKb * 1024)}, output ok`,
  );
  return { ms: res.ms, cpuMs: res.cpuMs, peakRssKb: res.peakRssKb };
}

/**
 * Parts 1-3. `sizes`: key counts; `shares`: working sets as fractions of `shareKeys` keys, at
 * `shareIntervalMs`; `later`: checkpoints after the first in each steady run.
 */
export async function checkpointStateSuite(
  { sizes, shareKeys, shares, intervalMs, shareIntervalMs, sizeShare, later, recoverRuns },
  { entry, log },
) {
  mkdirSync(JOBS_DIR, { recursive: true });
  mkdirSync(OUT_DIR, { recursive: true });
  const bySize = [];
  const loads = new Map();
  try {
    for (const keys of sizes) {
      const row = { keys, valueChars: VALUE_CHARS, share: sizeShare, intervalMs };
      bySize.push(row);
      try {
        const load = await loadRun(entry, keys, log);
        loads.set(keys, load);
        row.load = {
          loadedAtMs: load.loadedAtMs,
          ms: load.ms,
          stateOnDisk: load.stateOnDisk,
          stopBase: load.stopBase,
        };
        const workingSet = Math.max(1, Math.round(keys * sizeShare));
        const steady = await steadyRun(entry, load, {
          keys,
          workingSet,
          intervalMs,
          later,
          tag: 'size',
          log,
        });
        row.steady = steady.summary;
        row.recovery = [];
        const runs = typeof recoverRuns === 'function' ? recoverRuns(keys) : recoverRuns;
        for (let a = 1; a <= runs; a++) {
          row.recovery.push(await recoverRun(entry, load, steady, { keys, workingSet, log, attempt: a }));
        }
        row.recoveredFrom = {
          id: steady.summary.last.id,
          files: 1 + steady.summary.later.filter((e) => !e.base).length,
        };
        clean(steady.home);
      } catch (e) {
        row.error = e.message;
        log(`  checkpoints, ${fmtKeys(keys)}: FAILED ${e.message}`);
      }
      if (keys !== shareKeys) {
        const load = loads.get(keys);
        if (load) clean(join(CP_DIR, `cp-load-k${keys}`));
        loads.delete(keys);
      }
    }
    const byShare = [];
    let load = loads.get(shareKeys);
    if (!load) {
      try {
        load = await loadRun(entry, shareKeys, log);
      } catch (e) {
        byShare.push({ error: e.message });
      }
    }
    if (load) {
      for (const share of shares) {
        const workingSet = Math.max(1, Math.round(shareKeys * share));
        const row = { keys: shareKeys, share, workingSet, intervalMs: shareIntervalMs };
        byShare.push(row);
        try {
          const steady = await steadyRun(entry, load, {
            keys: shareKeys,
            workingSet,
            intervalMs: shareIntervalMs,
            later,
            tag: `share${workingSet}`,
            log,
          });
          row.steady = steady.summary;
          clean(steady.home);
        } catch (e) {
          row.error = e.message;
          log(`  checkpoints, share ${share}: FAILED ${e.message}`);
        }
      }
    }
    return {
      valueChars: VALUE_CHARS,
      recoverTail: RECOVER_TAIL,
      bySize,
      byShare,
      shareKeys,
      shareIntervalMs,
    };
  } finally {
    rmSync(CP_DIR, { recursive: true, force: true }); // gigabytes: do not leave them in bench/.work
  }
}

const fmt = (n) => (n === undefined ? '?' : Math.round(n).toLocaleString('en-US'));
const s = (msValue) => (msValue === undefined ? '?' : (msValue / 1000).toFixed(2));
const ms = (msValue) => (msValue === undefined ? '?' : msValue.toFixed(1));
const mib = (bytes) => (bytes === undefined ? '?' : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);
const fmtKeys = (keys) => `${fmt(keys)} keys`;
