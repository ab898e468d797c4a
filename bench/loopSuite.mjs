// The loops suite (issue 29): the owner-has-items example, a job with a feedback edge, on many
// more events (bench/ownerData.mjs), run by the local engine (`pipewright run`, LevelDB, on one
// thread and on two) and by Pipewright's runner on Apache Flink (`pipewright flink`: the loop's
// head and tail pairs of docs/flink-loops-design.md, RocksDB; on an embedded MiniCluster and on
// the session cluster of `npm run services`). Checkpoints every second, as the example has them,
// so that each run also logs the records that circulate while a checkpoint is taken. Every run's
// output is checked against the digest of what the events decide (everything but the "waiting"
// lines, which timing decides).
//
// Beside them, the alternative issue 29 names to the head and tail: the same job with its loop
// through a Kafka topic (bench/kafkaLoopRows.mjs), on the engine and on the runner.

import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  clean,
  engineMissing,
  loadAverageLine,
  measureOptions,
  REPO_DIR,
  runEngine,
  writeJob,
} from './engineRun.mjs';
import { CLUSTER_URL, clusterAnswers, runRunner, snapshotRunner } from './flinkRunnerRows.mjs';
import { kafkaLoopConfig, kafkaLoopProblem } from './kafkaLoopRows.mjs';
import { ownerData, ownershipCanon } from './ownerData.mjs';
import { failedCell, fmtInt, fmtMiB, fmtS, fmtX } from './reportCells.mjs';

export const LOOP_SIZES = {
  full: { events: 100_000, owners: 1000 },
  quick: { events: 20_000, owners: 200 },
};

/** The example's job: `owners` (a `process` at parallelism 4, the loop's head) between a file and a file. */
function ownersJob(name, d) {
  const example = join(REPO_DIR, 'assets', 'examples', 'owner-has-items', 'owner-has-items.job.json');
  const job = JSON.parse(readFileSync(example, 'utf8'));
  job.name = name;
  for (const op of job.operators) {
    if (op.kind === 'source.jsonl') op.params.path = `../data/${d.path.split('/').pop()}`;
    if (op.kind === 'sink.jsonl') op.params.path = `../out/${name}.jsonl`;
  }
  return job;
}

/**
 * Runs the suite. `ctx` gives run.mjs's `measure`, `verifyOutput` and `log`, the engine entry
 * measured, the work folders, and whether the engine runs a job at all.
 */
export async function loopSuite(size, opt, ctx) {
  const { log } = ctx;
  const loadAtStart = os.loadavg()[0];
  const missing = engineMissing(ctx, 'loops');
  if (missing) return missing;
  const d = ownerData(size);
  log(`loops: ${fmtInt(d.events)} owner events (${fmtInt(d.moves)} moves) over ${fmtInt(d.owners)} owners`);
  const configs = [engineConfig(d, 1, ctx), engineConfig(d, 2, ctx)];
  const runner = await runnerConfigs(d, ctx);
  if (runner.error) log(`loops: runner rows not measured: ${runner.error}`);
  configs.push(...(runner.configs ?? []));
  const kafka = await kafkaLoopProblem();
  if (kafka) log(`loops: the Kafka-topic loop rows not measured: ${kafka}`);
  else configs.push(...kafkaConfigs(d, ctx, runner.configs ?? []));
  const rows = await ctx.measure(configs, measureOptions(opt));
  const local = rows.find((r) => r.id === 'loops-engine-t2');
  for (const r of rows) {
    if (r !== local && r.rps && local?.rps) r.vsLocal = r.rps / local.rps;
    // A Kafka-topic loop row against the same engine with the feedback edge.
    const edge = r.kafkaLoop
      ? rows.find((x) => x.id === r.id.replace('loops-kafka-', 'loops-').replace('runner-', 'owners-runner-'))
      : undefined;
    if (edge?.rps && r.rps) r.vsEdge = r.rps / edge.rps;
  }
  return {
    data: { events: d.events, moves: d.moves, owners: d.owners, bytes: d.bytes },
    rows,
    runnerError: runner.error,
    loadAtStart,
    loadAtEnd: os.loadavg()[0],
  };
}

function engineConfig(d, threads, ctx) {
  const name = `owners-engine-t${threads}`;
  const jobPath = writeJob(join(ctx.jobsDir, `${name}.job.json`), ownersJob(name, d));
  const stateDir = join(ctx.stateDir, name);
  const out = join(ctx.outDir, `${name}.jsonl`);
  return {
    id: `loops-engine-t${threads}`,
    label: `engine: level, \`owners\` at parallelism 4, ${threads === 1 ? '1 thread' : `${threads} threads`}`,
    records: d.events,
    kind: 'engine',
    threads,
    stateDir,
    prepare: () => clean(stateDir, out, join(ctx.jobsDir, '.pipewright', name)),
    run: () =>
      runEngine(jobPath, {
        entry: ctx.engineEntry,
        stateDir,
        timeoutMs: 15 * 60_000,
        extraArgs: ['--threads', String(threads)],
      }),
    verify: () => ctx.verifyOutput(out, ownershipCanon, d.expectedDigest),
  };
}

function runnerConfig(d, ctx, cluster) {
  const name = `owners-runner-${cluster ? 'cluster' : 'minicluster'}`;
  const jobPath = writeJob(join(ctx.jobsDir, `${name}.job.json`), ownersJob(name, d));
  const out = join(ctx.outDir, `${name}.jsonl`);
  return {
    id: `loops-${name}`,
    label: cluster
      ? 'Pipewright on Flink (runner): the session cluster, RocksDB, `owners` at parallelism 4'
      : 'Pipewright on Flink (runner): MiniCluster, RocksDB, `owners` at parallelism 4',
    records: d.events,
    kind: 'runner',
    cluster,
    jobPath,
    // A JVM and workers the CLI starts: --profile's `node --cpu-prof` reaches only the CLI.
    cpuProfile: false,
    prepare: () =>
      clean(out, join(ctx.jobsDir, '.pipewright', name), join(ctx.outDir, `.${name}.jsonl.flink`)),
    run: () => runRunner(ctx.engineEntry, jobPath, cluster),
    verify: () => ctx.verifyOutput(out, ownershipCanon, d.expectedDigest),
  };
}

/** The same job with its loop through a Kafka topic: on the engine (2 threads), and where the runner runs, on it. */
function kafkaConfigs(d, ctx, runnerRows) {
  const common = {
    records: d.events,
    expected: d.events + d.moves,
    digest: d.expectedDigest,
    ctx,
    makeJob: (name) => ownersJob(name, d),
  };
  const rows = [
    kafkaLoopConfig({
      ...common,
      id: 'loops-kafka-engine-t2',
      label: 'engine: level, the loop through a Kafka topic, 2 threads',
      name: 'owners-kafka-engine-t2',
      command: ['run', '--threads', '2'],
    }),
  ];
  // On the session cluster only: an embedded MiniCluster's Ctrl-C ends the job at once, without
  // the savepoint that joins its sink's file (docs/flink.md), so a job that never ends cannot
  // leave its output there.
  for (const r of runnerRows.filter((x) => x.cluster)) {
    rows.push(
      kafkaLoopConfig({
        ...common,
        id: 'loops-kafka-runner-cluster',
        label: `${r.label.replace(', RocksDB', ', RocksDB, the loop through a Kafka topic')}`,
        name: 'owners-kafka-runner-cluster',
        command: ['flink', '--cluster', r.cluster],
        runner: true,
      }),
    );
  }
  return rows;
}

/** The runner's rows, after an untimed smoke run (which builds its jar when none is current). */
async function runnerConfigs(d, ctx) {
  snapshotRunner(ctx.engineEntry);
  const smoke = runnerConfig(ownerData({ events: 2000, owners: 40 }), ctx);
  smoke.prepare();
  ctx.log('loops: a smoke run of the runner (untimed; builds its jar if flink/target has none current)');
  const res = await smoke.run();
  const bad = res.code !== 0 ? `exit ${res.code ?? res.signal}: ${firstLines(res)}` : await smoke.verify();
  if (bad) return { error: `\`pipewright flink\` of a 2000-event job: ${bad}` };
  const configs = [runnerConfig(d, ctx)];
  if (await clusterAnswers(CLUSTER_URL)) configs.push(runnerConfig(d, ctx, CLUSTER_URL));
  else
    ctx.log(`loops: cluster row not measured: no Flink cluster answers at ${CLUSTER_URL} (npm run services)`);
  return { configs };
}

const firstLines = (res) => (res.stderr || res.stdout).trim().split('\n').slice(0, 3).join(' | ');

// ---------------------------------------------------------------------------------------
// The docs section: its title starts with "### Loops", as run.mjs's SECTION_SUITES knows it.

export function loopReport(t) {
  const L = ['### Loops: owner-has-items, a feedback edge, on the engine and on Flink', ''];
  if (t.error) return [...L, `**Not measured:** ${t.error}`, ''];
  const d = t.data;
  L.push(
    `${fmtInt(d.events)} events (${fmtInt(d.moves)} of them moves, each going round the feedback edge once) over ` +
      `${fmtInt(d.owners)} owners; the example's job (\`owners\` at parallelism 4, LevelDB locally, RocksDB on Flink), ` +
      'checkpoints every second.',
  );
  L.push('');
  L.push(
    '| implementation | events/s (best) | vs the engine on 2 threads | the Kafka loop vs the feedback edge | best s | runs s | peak RSS | output |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |');
  for (const r of t.rows) {
    L.push(
      `| ${r.label} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ${fmtX(r.vsLocal)} | ${fmtX(r.vsEdge)} | ` +
        `${r.bestMs ? fmtS(r.bestMs) : '—'} | ${r.times.map(fmtS).join(' / ') || '—'} | ` +
        `${r.peakRssKb && r.kind !== 'runner' ? fmtMiB(r.peakRssKb) : '—'} | ${failedCell(r)} |`,
    );
  }
  if (t.runnerError) L.push('', `Runner rows not measured: ${t.runnerError}`);
  L.push('');
  L.push(
    'Every output is checked against the digest of what the events decide: each `owned` and `released` line, ' +
      'once (bench/ownerData.mjs); the `waiting` lines depend on how input and feedback interleave. The runner ' +
      "rows are timed process to process (the CLI, the JVM, the MiniCluster's start or the submission, the workers); " +
      "their peak RSS would be the CLI's only, so it is not shown. The Kafka-topic loop rows (bench/kafkaLoopRows.mjs) " +
      'run a job that never ends by itself: each is timed from its start to the moment its sink has committed every ' +
      'decided line, then stopped with Ctrl-C; a record goes round the loop once the checkpoint that wrote it has ' +
      'committed its Kafka transaction.',
  );
  L.push('');
  L.push(loadAverageLine(t.loadAtStart, t.loadAtEnd));
  L.push('');
  return L;
}
