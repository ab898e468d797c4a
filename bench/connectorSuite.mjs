// The connectors suite (issue 16), on the servers running on this machine:
// 1. Kafka topic -> keyed `process` (a running {n, sum} per key) -> Kafka topic, exactly once
//    with checkpoints every second and with checkpoints off (the sink then commits once, at the
//    end), against a hand-written script on the same client doing the same read-modify-write at
//    least once with its own offset commits (bench/baselines/kafka-keyed-map.mjs).
// 2. PostgreSQL: a table's rows read by source.postgres (snapshot, stopAt "current") -> keyed
//    `process` -> sink.postgres upsert, against a hand-written pg script doing the same upserts
//    (bench/baselines/postgres-keyed-upsert.mjs). Its part is in bench/connectorPostgres.mjs.
// Every output is read back (Kafka: read_committed) and checked: the record count, the multiset
// of every {k, n, sum} emitted, and the final {n, sum} per key, against the input's.

import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { join } from 'node:path';
import { postgresConfigs, postgresProblem, postgresSetup } from './connectorPostgres.mjs';
import { finalValues, keyedOutputCheck } from './connectorVerify.mjs';
import { keyedData } from './data.mjs';
import {
  clean,
  engineMissing,
  loadAverageLine,
  measureOptions,
  runBaseline,
  runEngine,
  writeJob,
} from './engineRun.mjs';
import { createTopic, deleteTopics, kafkaProblem, produceJsonl, readCommitted } from './kafkaTopics.mjs';
import { profileTable } from './profileAreas.mjs';

export const CONNECTOR_SIZES = {
  full: { kafka: { records: 1_000_000, keys: 100_000 }, postgres: { records: 200_000, keys: 20_000 } },
  quick: { kafka: { records: 50_000, keys: 5_000 }, postgres: { records: 20_000, keys: 2_000 } },
};

const BROKERS = process.env.PIPEWRIGHT_KAFKA_BROKERS ?? process.env.KAFKA_BROKERS ?? 'localhost:9092';
const PARTITIONS = 4;
const CHECKPOINT_MS = 1000;
/** The issue's targets: engine (exactly once, checkpoints 1 s) vs script; its cost vs checkpoints off. */
const TARGET_VS_SCRIPT = 0.8;
const TARGET_CHECKPOINT_COST = 0.15;

/** The keyed suite's read-modify-write; `at` is where the record's fields are. */
export const keyedCode = (at = 'r') =>
  `function process(r, ctx) { const s = ctx.state.value('acc'); const a = s.get() ?? { n: 0, sum: 0 }; ` +
  `a.n += 1; a.sum += ${at}.v; s.set(a); ctx.emit({ k: ${at}.k, n: a.n, sum: a.sum }); }`;

export async function connectorSuite(sizes, opt, ctx) {
  const loadAtStart = os.loadavg()[0];
  const missing = engineMissing(ctx, 'connectors');
  if (missing) return missing;
  const result = { loadAtStart };
  result.kafka = await kafkaPart(sizes.kafka, opt, ctx).catch((e) => ({ error: e.message }));
  result.postgres = await postgresPart(sizes.postgres, opt, ctx).catch((e) => ({ error: e.message }));
  result.loadAtEnd = os.loadavg()[0];
  return result;
}

// ---------------------------------------------------------------------------------------
// Kafka

async function kafkaPart(size, opt, ctx) {
  const problem = await kafkaProblem(BROKERS);
  if (problem) return { error: problem };
  const d = keyedData(size);
  const expected = await finalValues(d.path);
  const run = randomBytes(3).toString('hex');
  const input = `bench-conn-in-${run}`;
  const made = [input];
  await createTopic(BROKERS, input, PARTITIONS);
  try {
    ctx.log(`connectors: producing ${fmtInt(d.records)} records (${fmtInt(d.keys)} keys) into ${input}`);
    const produced = await produceJsonl(BROKERS, input, d.path);
    if (produced !== d.records) throw new Error(`produced ${produced} records, expected ${d.records}`);
    let round = 0;
    // Each run writes a topic of its own, made before the timed run and removed after its check.
    const outputTopic = async (id) => {
      const name = `bench-conn-out-${run}-${id}-${round++}`;
      await createTopic(BROKERS, name, PARTITIONS);
      made.push(name);
      return name;
    };
    let current;
    const verify = async () => {
      const check = keyedOutputCheck(d, expected);
      const { openTransactions } = await readCommitted(BROKERS, current, check.add);
      await deleteTopics(BROKERS, [current]);
      if (openTransactions) return `a transaction is still open on ${current}`;
      return check.problem();
    };
    const engine = (id, label, guarantee, checkpointIntervalMs) => {
      const stateDir = join(ctx.stateDir, `connectors-${id}`);
      return {
        id,
        label,
        records: d.records,
        kind: 'engine',
        guarantee,
        checkpointIntervalMs,
        stateDir,
        prepare: () => clean(stateDir),
        run: async () => {
          current = await outputTopic(id);
          const job = kafkaJob(`connectors-${id}`, input, current, guarantee, checkpointIntervalMs);
          const jobPath = writeJob(join(ctx.jobsDir, `connectors-${id}.job.json`), job);
          return runEngine(jobPath, {
            entry: ctx.engineEntry,
            stateDir,
            timeoutMs: 20 * 60_000,
            extraArgs: ['--threads', '1'],
          });
        },
        verify,
      };
    };
    const configs = [
      {
        id: 'kafka-script',
        label: 'baseline: script, @platformatic/kafka, Map, at least once (offsets committed every 1 s)',
        records: d.records,
        kind: 'baseline',
        prepare: () => {},
        run: async () => {
          current = await outputTopic('script');
          return runBaseline(
            'kafka-keyed-map.mjs',
            { brokers: BROKERS, in: input, out: current, group: `${current}-group`, commitMs: CHECKPOINT_MS },
            { timeoutMs: 20 * 60_000 },
          );
        },
        verify,
      },
      engine('kafka-eo-1s', 'engine: exactly once, checkpoints every 1 s', 'exactly-once', CHECKPOINT_MS),
      engine(
        'kafka-eo-off',
        'engine: exactly once, checkpoints off (one commit at the end)',
        'exactly-once',
        0,
      ),
    ];
    ctx.log(`connectors: Kafka -> keyed process -> Kafka, ${PARTITIONS} partitions, parallelism 1`);
    const rows = await ctx.measure(configs, measureOptions(opt));
    const script = rows.find((r) => r.id === 'kafka-script');
    const eo1s = rows.find((r) => r.id === 'kafka-eo-1s');
    const off = rows.find((r) => r.id === 'kafka-eo-off');
    for (const r of rows) if (r.kind === 'engine' && r.rps && script?.rps) r.vsScript = r.rps / script.rps;
    const checkpointCost = eo1s?.rps && off?.rps ? 1 - eo1s.rps / off.rps : undefined;
    return { data: { records: d.records, keys: d.keys, partitions: PARTITIONS }, rows, checkpointCost };
  } finally {
    await deleteTopics(BROKERS, made);
  }
}

/** in (source.kafka, bounded) -> acc (process, hash on k) -> out (sink.kafka keyed by k). */
function kafkaJob(name, input, output, deliveryGuarantee, checkpointIntervalMs) {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { maxParallelism: 128, stateBackend: 'memory', checkpointIntervalMs },
    operators: [
      {
        id: 'in',
        kind: 'source.kafka',
        parallelism: 1,
        params: { bootstrapServers: BROKERS, topic: input, startingOffsets: 'earliest', stopAt: 'latest' },
      },
      { id: 'acc', kind: 'process', parallelism: 1, params: { code: keyedCode() } },
      {
        id: 'out',
        kind: 'sink.kafka',
        parallelism: 1,
        params: { bootstrapServers: BROKERS, topic: output, keyField: 'k', deliveryGuarantee },
      },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'acc', to: 'out', partition: 'forward' },
    ],
  };
}

// ---------------------------------------------------------------------------------------
// PostgreSQL

async function postgresPart(size, opt, ctx) {
  const problem = await postgresProblem();
  if (problem) return { error: problem };
  const d = keyedData(size);
  const expected = await finalValues(d.path);
  const setup = await postgresSetup(d, ctx.log);
  try {
    const rows = await ctx.measure(
      postgresConfigs({ d, expected, setup, ctx, code: keyedCode('r.after'), checkpointMs: CHECKPOINT_MS }),
      measureOptions(opt),
    );
    const script = rows.find((r) => r.kind === 'baseline' && !r.fixed);
    for (const r of rows) {
      if (r.kind === 'engine' && !r.fixed && r.rps && script?.rps) r.vsScript = r.rps / script.rps;
    }
    return { data: { records: d.records, keys: d.keys }, rows };
  } finally {
    await setup.drop();
  }
}

// ---------------------------------------------------------------------------------------
// The docs section: its title starts with "### Connectors", as run.mjs's SECTION_SUITES knows it.

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtS = (ms) => (ms / 1000).toFixed(2);
const fmtMiB = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const fmtX = (x) => (x ? `**${x.toFixed(2)}×**` : '');
const outputCell = (r) =>
  r.error ? `FAILED: ${r.error.replaceAll('|', '\\|')}` : r.times.length ? 'ok' : '—';

function tableRows(rows, unit) {
  const script = rows.find((r) => r.kind === 'baseline');
  const perCpu = (r) => (r.bestCpuMs ? r.records / (r.bestCpuMs / 1000) : undefined);
  const L = [
    `| implementation | ${unit}/s (best) | vs the script | best s | its CPU s | ${unit} per CPU s | vs the script, per CPU s | runs s | peak RSS | output |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |',
  ];
  for (const r of rows) {
    const cpuRatio =
      r.kind === 'engine' && perCpu(r) && script && perCpu(script) ? perCpu(r) / perCpu(script) : undefined;
    L.push(
      `| ${r.label} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ${fmtX(r.vsScript)} | ` +
        `${r.bestMs ? fmtS(r.bestMs) : '—'} | ${r.bestCpuMs ? fmtS(r.bestCpuMs) : '—'} | ` +
        `${perCpu(r) ? fmtInt(perCpu(r)) : '—'} | ${cpuRatio ? `${cpuRatio.toFixed(2)}×` : ''} | ` +
        `${r.times.map(fmtS).join(' / ') || '—'} | ${r.peakRssKb ? fmtMiB(r.peakRssKb) : '—'} | ${outputCell(r)} |`,
    );
  }
  return L;
}

/** The least CPU seconds of a row's runs: on a shared machine the one least slowed by others. */
const leastCpuMs = (r) => (r?.cpuTimes?.length ? Math.min(...r.cpuTimes) : undefined);

/**
 * The PostgreSQL job and the script on the table's first row alone: what each costs whatever the
 * table's size (start-up, connections, the slot, shutdown), and the CPU of the rows without it.
 */
function fixedPart(rows) {
  const find = (kind, fixed) => rows.find((r) => r.kind === kind && Boolean(r.fixed) === fixed);
  const [engine, script, engineOne, scriptOne] = [
    find('engine', false),
    find('baseline', false),
    find('engine', true),
    find('baseline', true),
  ].map(leastCpuMs);
  if ([engine, script, engineOne, scriptOne].some((ms) => ms === undefined)) return undefined;
  const ratio = (engine - engineOne) / (script - scriptOne);
  return (
    `The fixed part (the same job and script on the table's first row alone, least CPU of the runs): engine ${fmtS(engineOne)} CPU s, ` +
    `script ${fmtS(scriptOne)}. On the whole table, least CPU: engine ${fmtS(engine)} s, script ${fmtS(script)} s ` +
    `(**${(engine / script).toFixed(2)}×** the script's CPU); less the fixed part, the rows cost the engine ` +
    `${fmtS(engine - engineOne)} s and the script ${fmtS(script - scriptOne)} s (**${ratio.toFixed(2)}×**).`
  );
}

const verdict = (ok) => (ok === undefined ? 'not measured' : ok ? 'met' : '**not met**');

export function connectorReport(c) {
  const L = ['### Connectors: Kafka and PostgreSQL, end to end', ''];
  if (c.error) return [...L, `**Not measured:** ${c.error}`, ''];
  const k = c.kafka;
  L.push('**Kafka topic → keyed `process` → Kafka topic.**', '');
  if (k.error) L.push(`**Not measured:** ${k.error}`, '');
  else {
    L.push(
      `${fmtInt(k.data.records)} JSON records ({k, v}, ${fmtInt(k.data.keys)} keys) in a topic of ${k.data.partitions} partitions, keyed by k; ` +
        '`source.kafka` (earliest, stopAt "latest") → `process` (hash on k, a running {n, sum} per key in value state, memory backend) → ' +
        '`sink.kafka` (keyed by k, exactly once) at parallelism 1 on one thread; the output topic has 4 partitions too. ' +
        'Time: from the process start to its exit, the input read and the output committed.',
      '',
    );
    L.push(...tableRows(k.rows, 'records'), '');
    const eo = k.rows.find((r) => r.id === 'kafka-eo-1s');
    L.push("| the issue's target | measured | |", '| --- | --- | --- |');
    L.push(
      `| engine exactly once, checkpoints 1 s ≥ ${TARGET_VS_SCRIPT}× the script | ${eo?.vsScript ? `${eo.vsScript.toFixed(2)}×` : '—'} | ${verdict(eo?.vsScript === undefined ? undefined : eo.vsScript >= TARGET_VS_SCRIPT)} |`,
    );
    L.push(
      `| cost of checkpoint-driven commits (1 s vs off) ≤ ${TARGET_CHECKPOINT_COST * 100}% | ${k.checkpointCost === undefined ? '—' : `${(k.checkpointCost * 100).toFixed(1)}%`} | ${verdict(k.checkpointCost === undefined ? undefined : k.checkpointCost <= TARGET_CHECKPOINT_COST)} |`,
    );
    L.push('');
  }
  const p = c.postgres;
  L.push('**PostgreSQL table → keyed `process` → PostgreSQL upsert.**', '');
  if (p.error) L.push(`**Not measured:** ${p.error}`, '');
  else {
    L.push(
      `${fmtInt(p.data.records)} rows (id, k, v; ${fmtInt(p.data.keys)} keys) inserted before the run; ` +
        '`source.postgres` (snapshot, stopAt "current": the rows come from the snapshot, not from the replication stream) → ' +
        '`process` (hash on after.k, the same running {n, sum}) → `sink.postgres` (upsert on k: batches of up to 5,000 ' +
        'distinct keys, each flushed by the next barrier; replays rewrite the same rows), checkpoints every 1 s, parallelism 1 ' +
        "on one thread, memory backend. Rows/s: input rows over the run's time.",
      '',
    );
    L.push(
      ...tableRows(
        p.rows.filter((r) => !r.fixed),
        'rows',
      ),
      '',
    );
    const fixed = fixedPart(p.rows);
    if (fixed) L.push(fixed, '');
  }
  L.push(
    'Checked after every run: Kafka outputs read back read_committed (with Fetch, dropping aborted transactions), PostgreSQL ' +
      'target tables selected whole; the count, the multiset of every {k, n, sum} (Kafka), and the final {n, sum} of every key ' +
      'must equal those computed from the input.',
  );
  L.push('');
  L.push(...profileTable([...(c.kafka?.rows ?? []), ...(c.postgres?.rows ?? [])]));
  L.push(loadAverageLine(c.loadAtStart, c.loadAtEnd));
  L.push('');
  return L;
}
