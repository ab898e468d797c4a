// Spawning and timing whole processes (the engine's CLI and the baseline scripts alike):
// wall time from spawn to exit, and the child's peak resident set size.
//
// Peak RSS comes from GNU time (`/usr/bin/time -v`, "Maximum resident set size") when it is
// present; otherwise the child's /proc/<pid>/status VmHWM is polled every 20 ms (VmHWM
// only grows, so the last reading before exit is the peak, give or take the last 20 ms).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR } from './data.mjs';

export const REPO_DIR = resolve(BENCH_DIR, '..');
export const CLI = join(REPO_DIR, 'bin', 'pipewright.js');

const GNU_TIME = '/usr/bin/time';
let gnuTimeWorks;
function hasGnuTime() {
  if (gnuTimeWorks === undefined) {
    gnuTimeWorks =
      existsSync(GNU_TIME) &&
      /Maximum resident set size/.test(
        spawnSync(GNU_TIME, ['-v', 'true'], { encoding: 'utf8' }).stderr ?? '',
      );
  }
  return gnuTimeWorks;
}

/** How peak RSS is measured on this machine (for the docs). */
export function rssMethod() {
  return hasGnuTime() ? '/usr/bin/time -v (Maximum resident set size)' : 'polling /proc/<pid>/status VmHWM';
}

function readHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `command args` to its exit. Resolves { ms, cpuMs, peakRssKb, code, signal, stderr, stdout }
 * (cpuMs: user + system CPU time of the child, from GNU time; undefined without it).
 * stdout and stderr are kept (the last 64 KiB of each).
 */
export function runTimed(command, args, { cwd = REPO_DIR, env = process.env, timeoutMs = 30 * 60_000 } = {}) {
  const gnu = hasGnuTime();
  if (profileDir !== undefined && command === process.execPath) {
    args = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...args];
  }
  const argv = gnu ? ['-v', command, ...args] : args;
  const bin = gnu ? GNU_TIME : command;
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    const child = spawn(bin, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const keep = (s, chunk) => {
      const t = s + chunk;
      return t.length > 65536 ? t.slice(-65536) : t;
    };
    child.stdout.setEncoding('utf8').on('data', (c) => {
      stdout = keep(stdout, c);
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      stderr = keep(stderr, c);
    });
    let hwm = 0;
    const poll = gnu
      ? undefined
      : setInterval(() => {
          hwm = Math.max(hwm, readHwmKb(child.pid));
        }, 20);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      reject(e);
    });
    child.on('close', (code, signal) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      let peakRssKb = hwm;
      let cpuMs;
      if (gnu) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        peakRssKb = m ? Number(m[1]) : 0;
        const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        if (user && sys) cpuMs = Math.round((Number(user[1]) + Number(sys[1])) * 1000);
        // Drop GNU time's report from what the caller sees as the child's stderr.
        const at = stderr.lastIndexOf('\tCommand being timed:');
        if (at >= 0) stderr = stderr.slice(0, at);
        const exit = /Command exited with non-zero status (\d+)/.exec(stderr);
        if (exit) {
          code = Number(exit[1]);
          stderr = stderr.replace(/Command exited with non-zero status \d+\s*$/, '');
        }
        const sig = /Command terminated by signal (\d+)/.exec(stderr);
        if (sig) {
          signal = Number(sig[1]);
          code = null;
          stderr = stderr.replace(/Command terminated by signal \d+\s*$/, '');
        }
      }
      resolvePromise({ ms, cpuMs, peakRssKb, code, signal, stdout, stderr: stderr.trim() });
    });
  });
}

/** Where the node processes runTimed starts write their CPU profiles, while `profiled` runs. */
let profileDir;

/**
 * Runs `run` (which starts one measured process) with CPU profiles written into `dir`, emptied
 * first: every node process it starts gets `--cpu-prof`, and the engine runs from its modules in
 * dist/engine instead of the CLI bundle, whose minified frames would not say which file they are.
 */
export async function profiled(dir, run) {
  clean(dir);
  mkdirSync(dir, { recursive: true });
  profileDir = dir;
  try {
    return await run();
  } finally {
    profileDir = undefined;
  }
}

/** The engine's unbundled entry beside a bundled one (dist/cli/pipewright.js), if it is there. */
function readableEntry(entry) {
  const dist = entry === CLI ? join(REPO_DIR, 'dist') : dirname(dirname(entry));
  const main = join(dist, 'engine', 'cli', 'main.js');
  return existsSync(main) ? main : entry;
}

/** Bytes of all files under `dir` (0 when it does not exist). */
export function dirBytes(dir) {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

export function clean(...paths) {
  for (const p of paths) rmSync(p, { recursive: true, force: true });
}

/** Writes a job file (pretty JSON) and returns its path. */
export function writeJob(path, job) {
  writeFileSync(path, `${JSON.stringify(job, null, 2)}\n`);
  return path;
}

/**
 * Runs `pipewright run JOB --state-dir DIR --quiet` (plus `nodeFlags` for node itself, e.g.
 * --max-old-space-size=256), timed like any other process. `entry` is the script node runs:
 * bin/pipewright.js by default, or a copy of dist/cli/pipewright.js (what the bin imports).
 */
export function runEngine(
  jobPath,
  { entry = CLI, stateDir, nodeFlags = [], extraArgs = [], timeoutMs } = {},
) {
  // The benchmarks' jobs read ../data and write ../out, outside their folder: they are our own.
  const args = [
    ...nodeFlags,
    profileDir === undefined ? entry : readableEntry(entry),
    'run',
    jobPath,
    '--quiet',
    '--trust',
  ];
  if (stateDir) args.push('--state-dir', stateDir);
  args.push(...extraArgs);
  return runTimed(process.execPath, args, { timeoutMs });
}

/** Runs a baseline script under bench/baselines with `--name value` options. */
export function runBaseline(script, options, { nodeFlags = [], timeoutMs } = {}) {
  const args = [...nodeFlags, join(BENCH_DIR, 'baselines', script)];
  for (const [k, v] of Object.entries(options)) args.push(`--${k}`, String(v));
  return runTimed(process.execPath, args, { timeoutMs });
}

/**
 * A hand-written script as a configuration `measure` runs: it writes `<id>.jsonl` in the suite's
 * output folder and, on the `level` backend, keeps its LevelDB in a folder of its own.
 * `verify(out)` checks what it wrote.
 */
export function scriptConfig(ctx, { id, label, script, backend, records, args, verify }) {
  const out = join(ctx.outDir, `${id}.jsonl`);
  const db = join(ctx.stateDir, id);
  const usesDb = backend === 'level';
  return {
    id,
    label,
    records,
    kind: 'baseline',
    backend,
    stateDir: usesDb ? db : undefined,
    prepare: () => clean(out, db),
    run: () => runBaseline(script, { ...args, out, ...(usesDb ? { db } : {}) }),
    verify: () => verify(out),
  };
}

/**
 * The line a suite's report ends with: the machine's load while it ran, and a warning when
 * other work shared the cores (the suite's own runs add about 1 at parallelism 1, 2 at 2).
 */
export function loadAverageLine(loadAtStart = 0, loadAtEnd = 0) {
  const busy = Math.max(loadAtStart, loadAtEnd) > 1.2;
  return (
    `1-minute load average when this suite started: ${loadAtStart.toFixed(2)}, at its end: ` +
    `${loadAtEnd.toFixed(2)}, on ${os.cpus().length} cores` +
    (busy
      ? ': **other work was running on the machine** beside the benchmark (its own runs add about 1 at parallelism 1, 2 at parallelism 2), so these figures are on a shared machine and lower than on an idle one.'
      : '.')
  );
}

/**
 * What a suite that runs engine jobs returns when the engine cannot run one (said in the log
 * under the suite's `name`); undefined when it can.
 */
export function engineMissing(ctx, name) {
  if (ctx.engine?.ok) return undefined;
  ctx.log(`${name}: engine not measured: ${ctx.engine?.reason ?? 'unknown'}`);
  return { error: ctx.engine?.reason ?? 'the engine was not checked' };
}

/** measure()'s options: --quick takes `--runs` runs of each row, short ones too (not 5 each). */
export const measureOptions = (opt) =>
  opt.quick ? { runs: opt.runs, shortRuns: opt.runs } : { runs: opt.runs };
