// The keyed read-modify-write job on Apache Flink, the peer users compare Pipewright with:
// bench/flink/ (a Maven project; bench tooling only, never a dependency of the product) runs it
// in a local MiniCluster on the heap (HashMap) and the RocksDB state backends, at parallelism 1
// and 2 (RocksDB at 4 too), on the keyed suite's input, checked against the keyed suite's
// reference digest; beside them, the same job run by Pipewright's own runner on Flink
// (bench/flinkRunnerRows.mjs).
//
// Maven builds it once into bench/.work/flink/ (compiled classes and the dependency classpath,
// jars from Maven Central in ~/.m2); the build is reused while bench/flink/ is unchanged. Each
// run is a `java -cp ... bench.flink.KeyedJob` child process, timed from spawn to exit like every
// other row; the job also prints Flink's own run time for it (netRuntime: without the JVM's and
// the MiniCluster's start), reported beside the process time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, keyedCanon, keyedData, WORK_DIR } from './data.mjs';
import { clean, runTimed } from './engineRun.mjs';
import { runnerConfigs, runnerCpuSplit, runnerReport, runnerSummary } from './flinkRunnerRows.mjs';

const PROJECT = join(BENCH_DIR, 'flink');
const BUILD = join(WORK_DIR, 'flink');
const CLASSES = join(BUILD, 'target', 'classes');
const CLASSPATH_FILE = join(BUILD, 'classpath.txt');
const STAMP_FILE = join(BUILD, 'build.json');
const MAIN_CLASS = 'bench.flink.KeyedJob';

/**
 * What Flink's own distribution passes its JVMs on Java 17 (env.java.opts.all, kept in
 * flink/jvm-options.txt): its serializers reflect into these modules.
 */
const JVM_FLAGS = [
  ...readFileSync(join(BENCH_DIR, '..', 'flink', 'jvm-options.txt'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#')),
  // Flink logs at info by default: a few hundred lines a run. Warnings and errors still show.
  '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
];

export const FLINK_BACKENDS = [
  // Flink's backend, and the Pipewright stateBackend it is compared with.
  { backend: 'heap', engineBackend: 'memory' },
  { backend: 'rocksdb', engineBackend: 'level' },
];

/** The first line of `cmd args` (stdout or stderr), or undefined when it cannot run. */
function versionLine(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return `${r.stdout}\n${r.stderr}`.trim().split('\n')[0].trim();
}

/** A digest of every file of bench/flink/: the build is redone when it changes. */
function sourceStamp(dir = PROJECT) {
  const h = createHash('sha256');
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(p.slice(dir.length)).update('\0').update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

function cachedBuild(stamp) {
  try {
    const saved = JSON.parse(readFileSync(STAMP_FILE, 'utf8'));
    if (saved.stamp !== stamp || !existsSync(join(CLASSES, 'bench', 'flink', 'KeyedJob.class')))
      return undefined;
    const classpath = readFileSync(CLASSPATH_FILE, 'utf8').trim().split(':');
    if (!classpath.every((p) => existsSync(p))) return undefined; // ~/.m2 was cleaned
    return [CLASSES, ...classpath];
  } catch {
    return undefined;
  }
}

/**
 * Java and Maven present, bench/flink/ compiled: { ok, classpath, java, maven, build } or
 * { ok: false, reason }.
 */
export function flinkBuild(log) {
  const javaLine = versionLine('java', ['-version']);
  const java = javaLine && `Java ${/version "([^"]+)"/.exec(javaLine)?.[1] ?? javaLine}`;
  if (!java) return { ok: false, reason: 'no `java` on PATH (Java 17 runs the Flink job)' };
  const maven = /Apache Maven [\d.]+/.exec(versionLine('mvn', ['-B', '-v']) ?? '')?.[0];
  if (!maven) return { ok: false, reason: 'no `mvn` on PATH (Maven builds bench/flink/)' };
  const stamp = sourceStamp();
  let classpath = cachedBuild(stamp);
  let build = 'cached';
  if (!classpath) {
    log('flink: building bench/flink/ with Maven (jars from Maven Central; not timed)');
    mkdirSync(BUILD, { recursive: true });
    const t0 = Date.now();
    const r = spawnSync(
      'mvn',
      [
        '-q',
        '-B',
        '-f',
        join(PROJECT, 'pom.xml'),
        'compile',
        'dependency:build-classpath',
        `-Dmdep.outputFile=${CLASSPATH_FILE}`,
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.error || r.status !== 0) {
      const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`
        .split('\n')
        .filter((l) => /ERROR|error:/.test(l))
        .slice(0, 3)
        .join(' | ');
      return {
        ok: false,
        reason: `the Maven build of bench/flink/ failed: ${out || r.error?.message || `exit ${r.status}`}`,
      };
    }
    classpath = cachedBuild(stamp) ?? [CLASSES, ...readFileSync(CLASSPATH_FILE, 'utf8').trim().split(':')];
    writeFileSync(STAMP_FILE, `${JSON.stringify({ stamp }, null, 2)}\n`);
    build = `built in ${((Date.now() - t0) / 1000).toFixed(0)} s`;
  }
  return { ok: true, classpath, java, maven, build };
}

/** A Flink measurement, in the shape bench/run.mjs's measure() takes. */
function flinkConfig(d, build, { backend, parallelism }, { outDir, stateDir, verifyOutput }) {
  const id = `flink-${backend}-p${parallelism}`;
  const out = join(outDir, `${id}.jsonl`);
  const tmp = join(stateDir, id); // Flink's io.tmp.dirs and RocksDB's local directory
  let last;
  return {
    id,
    label: `Flink: ${backend === 'heap' ? 'heap (HashMap)' : 'RocksDB'}, parallelism ${parallelism}`,
    records: d.records,
    kind: 'flink',
    backend,
    parallelism,
    // A JVM: --profile's `node --cpu-prof` does not reach it.
    cpuProfile: false,
    prepare: () => clean(out, tmp),
    run: async () => {
      last = undefined;
      const args = [...JVM_FLAGS, '-cp', build.classpath.join(':'), MAIN_CLASS];
      args.push(d.path, out, String(parallelism), backend, '--tmp-dir', tmp);
      const res = await runTimed('java', args, { timeoutMs: 15 * 60_000 });
      if (res.code === 0) {
        try {
          last = JSON.parse(res.stdout.trim().split('\n').pop());
        } catch {
          return { ...res, code: 1, stderr: `no result line from the Flink job: ${res.stdout.slice(-200)}` };
        }
      }
      return res;
    },
    verify: () => verifyOutput(out, keyedCanon, d.expectedDigest),
    inspect: () => last,
  };
}

/** Flink's native rows: both backends at parallelism 1 and 2; RocksDB at 4 too, the runner's pair. */
const NATIVE_ROWS = [
  ['heap', 1],
  ['heap', 2],
  ['rocksdb', 1],
  ['rocksdb', 2],
  ['rocksdb', 4],
];

/**
 * Measures Flink's native rows and Pipewright's runner rows (bench/flinkRunnerRows.mjs) on the
 * keyed suite's input. `engineRows` are the keyed suite's rows when it ran in this process;
 * otherwise `engineConfigs(d)` (the Pipewright rows) are measured here, round-robin with Flink's.
 * The runner rows need `engineOk`, `engineEntry`, `jobsDir` and `keyedJob` (the keyed suite's job).
 */
export async function flinkSuite(
  size,
  opt,
  {
    measure,
    verifyOutput,
    log,
    outDir,
    stateDir,
    engineRows,
    engineConfigs,
    engineOk,
    engineEntry,
    jobsDir,
    keyedJob,
  },
) {
  const build = flinkBuild(log);
  if (!build.ok) {
    log(`flink: not measured: ${build.reason}`);
    return { error: build.reason };
  }
  const d = keyedData(size);
  log(
    `flink: keyed read-modify-write on Flink, ${d.records.toLocaleString('en-US')} records (${build.java}; build ${build.build})`,
  );
  const configs = NATIVE_ROWS.map(([backend, parallelism]) =>
    flinkConfig(d, build, { backend, parallelism }, { outDir, stateDir, verifyOutput }),
  );
  const runner = engineOk
    ? await runnerConfigs(d, { engineEntry, jobsDir, outDir, keyedJob, verifyOutput, log })
    : { error: 'the engine does not run (see above)' };
  if (runner.error) log(`flink: runner rows not measured: ${runner.error}`);
  const ownEngine = engineRows === undefined;
  const rows = await measure(
    [...(ownEngine ? engineConfigs(d) : []), ...configs, ...(runner.configs ?? [])],
    { runs: opt.runs },
  );
  for (const r of rows.filter((x) => x.kind === 'flink')) {
    const runs = r.inspections.filter(Boolean);
    r.jobMs = runs.map((x) => x.jobMs);
    r.bestJobMs = r.jobMs.length ? Math.min(...r.jobMs) : undefined;
    r.flinkVersion = runs[0]?.flink;
    delete r.inspections;
  }
  const flink = rows.filter((r) => r.kind === 'flink');
  const engine = (ownEngine ? rows : engineRows).filter((r) => r.kind === 'engine');
  const runnerRows = rows.filter((r) => r.kind === 'runner');
  if (runner.configs) await runnerCpuSplit(runnerRows, runner.configs, { engineEntry, log });
  return {
    data: { records: d.records, keys: d.keys, bytes: d.bytes },
    java: build.java,
    maven: build.maven,
    flinkVersion: flink.find((r) => r.flinkVersion)?.flinkVersion,
    engineFrom: ownEngine ? 'flink' : 'keyed',
    rows: flink,
    engineRows: ownEngine ? engine : undefined,
    ratios: ratios(engine, flink),
    runner: runner.error
      ? { error: runner.error }
      : { rows: runnerRows, summary: runnerSummary(runnerRows, flink, engine) },
  };
}

/**
 * Every Pipewright engine row against the Flink row of the same kind of state and parallelism;
 * of the keyed suite's rows only those on as many threads as subtasks (a Flink MiniCluster runs
 * each of its P slots on a thread of its own).
 */
function ratios(engine, flink) {
  const out = [];
  for (const e of engine) {
    if (e.threads !== undefined && e.threads !== e.parallelism) continue;
    const pair = FLINK_BACKENDS.find((b) => b.engineBackend === e.backend);
    const f = pair && flink.find((r) => r.backend === pair.backend && r.parallelism === e.parallelism);
    if (!f) continue;
    const flinkJobRps = f.bestJobMs ? f.records / (f.bestJobMs / 1000) : undefined;
    out.push({
      engine: e.label,
      flink: f.label,
      engineRps: e.rps,
      flinkRps: f.rps,
      flinkJobRps,
      vsProcess: e.rps && f.rps ? e.rps / f.rps : undefined,
      vsJob: e.rps && flinkJobRps ? e.rps / flinkJobRps : undefined,
    });
  }
  return out;
}

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtS = (ms) => (ms / 1000).toFixed(2);
const fmtMiB = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const fmtX = (x) => (x ? `**${x.toFixed(2)}×**` : '—');

/** The docs section (its title starts with "### Apache Flink", as SECTION_SUITES knows it). */
export function flinkReport(f) {
  const L = ['### Apache Flink: the keyed read-modify-write job, side by side', ''];
  if (f.error) return [...L, `**Not measured:** ${f.error}`, ''];
  L.push(
    `${fmtInt(f.data.records)} records, ${fmtInt(f.data.keys)} keys, the keyed suite's input and reference; ` +
      `Flink ${f.flinkVersion ?? '?'} in a local MiniCluster on ${f.java}.`,
  );
  L.push('');
  L.push(
    '| implementation | records/s (best, process) | best s | Flink job s (best) | its CPU s | runs s | peak RSS | output |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |');
  const rows = [...(f.engineRows ?? []), ...f.rows, ...(f.runner?.rows ?? [])];
  for (const r of rows) {
    const failed = r.error ? `FAILED: ${r.error.replaceAll('|', '\\|')}` : undefined;
    L.push(
      `| ${r.label} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ${r.bestMs ? fmtS(r.bestMs) : '—'} | ` +
        `${r.bestJobMs ? fmtS(r.bestJobMs) : ''} | ${r.bestCpuMs ? fmtS(r.bestCpuMs) : '—'} | ` +
        `${r.times.map(fmtS).join(' / ') || '—'} | ${r.peakRssKb ? fmtMiB(r.peakRssKb) : '—'} | ${failed ?? (r.times.length ? 'ok' : '—')} |`,
    );
  }
  L.push('');
  if (f.ratios.length) {
    L.push(
      '| Pipewright | records/s | Flink | records/s (process) | records/s (job only) | ' +
        'Pipewright / Flink (process) | Pipewright / Flink (Flink job time only) |',
    );
    L.push('| --- | ---: | --- | ---: | ---: | ---: | ---: |');
    const rps = (x) => (x ? fmtInt(x) : '—');
    for (const r of f.ratios) {
      L.push(
        `| ${r.engine} | ${rps(r.engineRps)} | ${r.flink} | ${rps(r.flinkRps)} | ${rps(r.flinkJobRps)} | ` +
          `${fmtX(r.vsProcess)} | ${fmtX(r.vsJob)} |`,
      );
    }
    L.push('');
  }
  L.push(
    `Pipewright rows: ${f.engineFrom === 'keyed' ? 'those of the keyed suite above, same run' : 'measured here, round-robin with Flink'}; ` +
      'memory is compared with Flink heap, level with Flink RocksDB. Records/s and the "process" ratio are over the whole ' +
      "process (Node's start, or the JVM's and the MiniCluster's start and stop); \"Flink job s\" is Flink's netRuntime of " +
      'the job alone, and the last ratio uses it: Pipewright with its start-up against Flink without.',
  );
  L.push('');
  L.push(...runnerReport(f.runner));
  return L;
}
