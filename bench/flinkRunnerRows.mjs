// Issue 28's rows: the keyed suite's job run on Apache Flink by Pipewright's own runner
// (`pipewright flink JOB`: a JVM with an embedded MiniCluster, one Node worker per subtask of the
// `process` operator, its state in RocksDB), beside the native Java job on Flink and the local
// engine, in the Flink suite's round-robin.
//
// The rows run the bench's copy of dist/ (bench/.work/engine/dist), as every other engine row
// does, so a rebuild during the run cannot mix builds. The CLI finds the runner jar and the worker
// above its own file (engine/deploy/flinkBuild.ts: the first folder holding flink/pom.xml), so
// the runner is copied beside that copy too (pom, sources and the built jar, into
// bench/.work/engine/flink): the CLI then runs a jar built from the copied sources, which
// carries the copied worker (dist/flink/flinkWorker.mjs) and starts it as it unpacks it. A smoke run (untimed) builds the jar there with Maven
// when flink/target has none that is current, and says why the rows cannot run when it fails.
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { keyedCanon, keyedData } from './data.mjs';
import { clean, REPO_DIR, runTimed, writeJob } from './engineRun.mjs';
import { runWithTreeCpu } from './processTreeCpu.mjs';

export const RUNNER_PARALLELISMS = [1, 2, 4];

/** The session cluster `npm run services` starts: two TaskManagers of two slots each. */
export const CLUSTER_URL = process.env.PIPEWRIGHT_FLINK_URL ?? 'http://127.0.0.1:8081';

/** Whether a Flink cluster answers at `url` (its REST API's /config), within a few seconds. */
export async function clusterAnswers(url) {
  try {
    const res = await fetch(`${url}/config`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** Issue 28's targets, as [label, measured ratio's name, at least]. */
const TARGETS = [
  ['the runner at parallelism 1 / native Java on Flink (RocksDB, parallelism 1)', 'p1VsNative', 0.6],
  ['the runner at parallelism 2 / the runner at parallelism 1', 'p2VsP1', 1.6],
  ['the same on the session cluster (two TaskManagers)', 'clusterP2VsP1', 1.6],
];

/** bench/.work/engine: the folder above the copied dist/ the CLI runs from. */
const engineRoot = (engineEntry) => dirname(dirname(dirname(engineEntry)));

/** Copies flink/'s pom, sources and (if built) jar beside the bench's copy of dist/. */
export function snapshotRunner(engineEntry) {
  const to = join(engineRoot(engineEntry), 'flink');
  clean(to);
  mkdirSync(join(to, 'target'), { recursive: true });
  const from = join(REPO_DIR, 'flink');
  cpSync(join(from, 'pom.xml'), join(to, 'pom.xml'));
  cpSync(join(from, 'jvm-options.txt'), join(to, 'jvm-options.txt'));
  cpSync(join(from, 'src', 'main'), join(to, 'src', 'main'), { recursive: true });
  // The CLI takes the jar as current when the stamp is the digest of the sources copied here.
  for (const f of ['pipewright-flink-runner.jar', 'classpath.txt', 'pipewright-stamp.txt']) {
    if (existsSync(join(from, 'target', f))) cpSync(join(from, 'target', f), join(to, 'target', f));
  }
}

/** `pipewright flink JOB --quiet --trust [--cluster URL]` from the copied CLI, as measure() times it. */
export function runRunner(engineEntry, jobPath, cluster) {
  const args = [
    engineEntry,
    'flink',
    jobPath,
    '--quiet',
    '--trust',
    ...(cluster ? ['--cluster', cluster] : []),
  ];
  return runTimed(process.execPath, args, { timeoutMs: 20 * 60_000 });
}

/**
 * A runner row: the keyed suite's job (input, code, topology and `level` backend: on Flink,
 * RocksDB) at `parallelism`, checked against the keyed reference in the sink's joined file.
 */
function runnerConfig(d, parallelism, ctx, cluster) {
  const name = `keyed-flink-runner-${cluster ? 'cluster-' : ''}p${parallelism}`;
  const job = ctx.keyedJob(name, { dataPath: d.path, backend: 'level', parallelism });
  const jobPath = writeJob(join(ctx.jobsDir, `${name}.job.json`), job);
  const out = join(ctx.outDir, `${name}.jsonl`);
  return {
    id: `runner-${cluster ? 'cluster' : 'rocksdb'}-p${parallelism}`,
    label: cluster
      ? `Pipewright on Flink (runner): the session cluster's two TaskManagers, RocksDB, parallelism ${parallelism}`
      : `Pipewright on Flink (runner): RocksDB, parallelism ${parallelism}`,
    records: d.records,
    kind: 'runner',
    backend: 'rocksdb',
    parallelism,
    cluster,
    jobPath,
    // A JVM and workers the CLI starts: --profile's `node --cpu-prof` reaches only the CLI.
    cpuProfile: false,
    // The plan, Flink's log and checkpoints; the sink's part files beside its file.
    prepare: () =>
      clean(out, join(ctx.jobsDir, '.pipewright', name), join(ctx.outDir, `.${name}.jsonl.flink`)),
    run: () => runRunner(ctx.engineEntry, jobPath, cluster),
    verify: () => ctx.verifyOutput(out, keyedCanon, d.expectedDigest),
  };
}

/**
 * The runner rows of the Flink suite, or { error } when the runner cannot run here. `ctx`:
 * { engineEntry, jobsDir, outDir, keyedJob, verifyOutput, log }.
 */
export async function runnerConfigs(d, ctx) {
  snapshotRunner(ctx.engineEntry);
  const smoke = runnerConfig(keyedData({ records: 2000, keys: 50 }), 1, ctx);
  smoke.prepare();
  ctx.log('flink: a smoke run of the runner (untimed; builds its jar if flink/target has none current)');
  const res = await runRunner(ctx.engineEntry, smoke.jobPath);
  const bad =
    res.code !== 0
      ? `exit ${res.code ?? res.signal}: ${(res.stderr || res.stdout).trim().split('\n').slice(0, 3).join(' | ')}`
      : await smoke.verify();
  if (bad) return { error: `\`pipewright flink\` of a 2000-record job: ${bad}` };
  const configs = RUNNER_PARALLELISMS.map((p) => runnerConfig(d, p, ctx));
  // The same job submitted to the running session cluster (its TaskManagers are this machine's
  // too): no JVM of the CLI's own, the jar uploaded once (the smoke run below does it).
  if (await clusterAnswers(CLUSTER_URL)) {
    const onCluster = runnerConfig(keyedData({ records: 2000, keys: 50 }), 1, ctx, CLUSTER_URL);
    onCluster.prepare();
    const res = await runRunner(ctx.engineEntry, onCluster.jobPath, CLUSTER_URL);
    const failed = res.code !== 0 ? `exit ${res.code ?? res.signal}` : await onCluster.verify();
    if (failed) ctx.log(`flink: cluster rows not measured: a smoke run on ${CLUSTER_URL} failed (${failed})`);
    else configs.push(...RUNNER_PARALLELISMS.map((p) => runnerConfig(d, p, ctx, CLUSTER_URL)));
  } else {
    ctx.log(
      `flink: cluster rows not measured: no Flink cluster answers at ${CLUSTER_URL} (npm run services)`,
    );
  }
  return { configs };
}

/** A JVM thread's share of the work, by its name (Linux keeps 15 characters of it). */
function threadArea(name) {
  if (/^C\d CompilerThre/.test(name)) return 'JIT compilers';
  if (/^(GC Thread|G1 |VM Thread|VM Periodic)/.test(name)) return 'GC and VM';
  if (/^rocksdb/.test(name)) return 'RocksDB threads';
  if (/^pipewright .* reader|^pipewright work/.test(name)) return 'worker pipe readers';
  if (/^acc\b/.test(name)) return 'process subtasks';
  if (/^Source/.test(name)) return 'source';
  if (/^out\b/.test(name)) return 'sink';
  if (name === 'java') return 'main (MiniCluster start, submit)';
  return 'Flink runtime (pekko, io, metrics, checkpoints)';
}

/**
 * One more run of each runner row, untimed, with the CPU seconds of its processes read from
 * /proc: the CLI, the JVM (by its threads' areas) and the Node workers. Kept on the row as `cpu`.
 */
export async function runnerCpuSplit(rows, configs, { engineEntry, log }) {
  for (const r of rows) {
    const c = configs.find((x) => x.id === r.id);
    // A cluster's JVMs are not the CLI's children: /proc under the CLI sees only the CLI.
    if (!c || r.error || c.cluster) continue;
    c.prepare();
    const isJvm = (argv) => argv.includes('dev.pipewright.flink.Runner');
    const res = await runWithTreeCpu(
      process.execPath,
      [engineEntry, 'flink', c.jobPath, '--quiet', '--trust'],
      { withThreads: isJvm },
    ).catch((e) => ({ code: null, stderr: String(e), processes: [] }));
    const bad = res.code !== 0 ? `exit ${res.code ?? res.signal}` : await c.verify();
    if (bad) {
      log(`  ${r.label}: the run reading CPU by process failed (${bad})`);
      continue;
    }
    const jvm = res.processes.find((p) => isJvm(p.argv));
    // The runner starts the worker it carries, extracted as flinkWorker-<digest>.mjs (BundledWorker).
    const workers = res.processes.filter((p) => p.argv.some((a) => /flinkWorker(-[0-9a-f]+)?\.mjs$/.test(a)));
    const cli = res.processes.filter((p) => p !== jvm && !workers.includes(p));
    const areas = {};
    for (const t of jvm?.threads ?? []) areas[threadArea(t.name)] = (areas[threadArea(t.name)] ?? 0) + t.cpuS;
    const sum = (ps) => ps.reduce((s, p) => s + p.cpuS, 0);
    r.cpu = { cliS: sum(cli), jvmS: jvm?.cpuS ?? 0, workersS: workers.map((w) => w.cpuS), jvmAreas: areas };
    log(
      `  ${r.label}: CPU s: CLI ${r.cpu.cliS.toFixed(2)}, JVM ${r.cpu.jvmS.toFixed(2)}, ` +
        `workers ${r.cpu.workersS.map((s) => s.toFixed(2)).join(' + ')}`,
    );
  }
}

/**
 * Each runner row against native Java on Flink (RocksDB) and the engine (level, on as many
 * threads as subtasks) at the same parallelism, and against the runner at parallelism 1; then
 * the issue's targets. All best records/s against best records/s, of the same run.
 */
export function runnerSummary(runnerRows, flinkRows, engineRows) {
  const onCluster = (r) => r.id.startsWith('runner-cluster-');
  const p1 = runnerRows.find((r) => r.parallelism === 1 && !onCluster(r));
  const clusterP1 = runnerRows.find((r) => r.parallelism === 1 && onCluster(r));
  const ratio = (a, b) => (a?.rps && b?.rps ? a.rps / b.rps : undefined);
  const rows = runnerRows.map((r) => {
    const native = flinkRows.find((f) => f.backend === 'rocksdb' && f.parallelism === r.parallelism);
    const engine = engineRows.find(
      (e) => e.backend === 'level' && e.parallelism === r.parallelism && e.threads === r.parallelism,
    );
    return {
      label: r.label,
      parallelism: r.parallelism,
      rps: r.rps,
      native: native?.label,
      vsNative: ratio(r, native),
      engine: engine?.label,
      vsEngine: ratio(r, engine),
      vsP1: r === p1 || r === clusterP1 ? undefined : ratio(r, onCluster(r) ? clusterP1 : p1),
      cpu: r.cpu,
      bestCpuMs: r.bestCpuMs,
    };
  });
  const mini = rows.filter((r) => !r.label.includes('TaskManagers'));
  const cluster = rows.filter((r) => r.label.includes('TaskManagers'));
  const measured = {
    p1VsNative: mini.find((r) => r.parallelism === 1)?.vsNative,
    p2VsP1: mini.find((r) => r.parallelism === 2)?.vsP1,
    clusterP2VsP1: cluster.find((r) => r.parallelism === 2)?.vsP1,
  };
  const targets = TARGETS.map(([label, key, atLeast]) => ({
    label,
    atLeast,
    measured: measured[key],
    met: measured[key] === undefined ? undefined : measured[key] >= atLeast,
  }));
  return { rows, targets };
}

const fmtX = (x) => (x ? `**${x.toFixed(2)}×**` : '—');
const fmtInt = (n) => (n ? Math.round(n).toLocaleString('en-US') : '—');
const fmtCpu = (s) => (s === undefined ? '—' : s.toFixed(1));

/** The runner's part of the Flink suite's section: ratios, targets, where its CPU went. */
export function runnerReport(runner) {
  if (!runner) return [];
  const L = ['#### Pipewright on Flink (issue 28): the runner', ''];
  if (runner.error) return [...L, `**Runner rows not measured:** ${runner.error}`, ''];
  const { rows, targets } = runner.summary;
  L.push(
    '| runner row | records/s (best) | / native Java, RocksDB, same parallelism | / the runner at parallelism 1 | / engine level, same parallelism and threads |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    L.push(
      `| ${r.label} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ${fmtX(r.vsNative)} | ${r.parallelism === 1 ? '1' : fmtX(r.vsP1)} | ${fmtX(r.vsEngine)} |`,
    );
  }
  L.push('');
  L.push('| issue 28 target | measured | target | met |');
  L.push('| --- | ---: | ---: | --- |');
  for (const t of targets) {
    const met = t.met === undefined ? '—' : t.met ? 'met' : '**not met**';
    L.push(`| ${t.label} | ${fmtX(t.measured)} | ≥ ${t.atLeast}× | ${met} |`);
  }
  L.push('');
  const split = rows.filter((r) => r.cpu);
  if (split.length) {
    const areas = [...new Set(split.flatMap((r) => Object.keys(r.cpu.jvmAreas)))].sort(
      (a, b) =>
        split.reduce((s, r) => s + (r.cpu.jvmAreas[b] ?? 0), 0) -
        split.reduce((s, r) => s + (r.cpu.jvmAreas[a] ?? 0), 0),
    );
    L.push(
      'Where the CPU went, from one more run of each row, untimed, reading `/proc` every 100 ms ' +
        '(`bench/processTreeCpu.mjs`): CPU seconds of the CLI (node: the plan, the jar check, joining ' +
        "the sink's parts), of the Node workers (one per subtask of `acc`) and of the JVM, the JVM's " +
        'split by its threads (by name).',
    );
    L.push('');
    L.push(`| runner row | CLI | workers | JVM | ${areas.map((a) => `JVM: ${a}`).join(' | ')} |`);
    L.push(`| --- | ---: | ---: | ---: | ${areas.map(() => '---:').join(' | ')} |`);
    for (const r of split) {
      const w = r.cpu.workersS;
      L.push(
        `| ${r.label} | ${fmtCpu(r.cpu.cliS)} | ${fmtCpu(w.reduce((s, x) => s + x, 0))}${w.length > 1 ? ` (${w.map(fmtCpu).join(' + ')})` : ''} | ` +
          `${fmtCpu(r.cpu.jvmS)} | ${areas.map((a) => fmtCpu(r.cpu.jvmAreas[a] ?? 0)).join(' | ')} |`,
      );
    }
    L.push('');
  }
  L.push(
    "Each runner row is `node <the bench's copy of dist>/cli/pipewright.js flink JOB --quiet --trust`, timed " +
      "from spawn to exit like the native Java rows (the CLI's, the JVM's and the MiniCluster's start, the workers' " +
      "start, and joining the sink's parts are inside the time); Flink's own job time is not shown for them (the CLI " +
      "reads the runner's `finished` line and does not print it). The runner checkpoints every second (its FileSink " +
      'commits only on checkpoints) where the native rows run without checkpoints.',
  );
  if (rows.some((r) => r.label.includes('TaskManagers'))) {
    L.push('');
    L.push(
      "The session cluster's rows submit the same job to the cluster `npm run services` starts (a JobManager and two " +
        'TaskManagers of two slots each, JVMs on this same machine, already running): their time has no JVM start, and ' +
        'their "/ the runner at parallelism 1" is against the cluster\'s own p1 row; "/ native Java" compares with ' +
        'the native job on a MiniCluster, as the other rows do. Their CPU is not split: the TaskManagers are not the ' +
        "CLI's processes.",
    );
  }
  L.push('');
  return L;
}
