// The transactions suite (issue 15): transfers between accounts, two rows each, through
// `source.jsonl -> transaction -> sink.jsonl` at parallelism 1, 2 and 4 on the `memory` and
// `level` backends, against hand-written serial Node scripts doing the same transfers (abort on
// overdraft) with a Map (bench/baselines/transfers-map.mjs) and with classic-level
// (transfers-level.mjs: getSync plus 1000-key batches). The input and the expected output's
// digest come from bench/transferData.mjs; every run's output is checked against it.

import os from 'node:os';
import { join } from 'node:path';
import {
  clean,
  engineMissing,
  loadAverageLine,
  measureOptions,
  runEngine,
  scriptConfig,
  writeJob,
} from './engineRun.mjs';
import { profileTable } from './profileAreas.mjs';
import { failedCell, fmtInt, fmtMiB, fmtS, fmtX } from './reportCells.mjs';
import { OPENING_BALANCE, transferCanon, transferData } from './transferData.mjs';

export const TRANSACTION_SIZES = {
  full: { records: 1_000_000, accounts: 100_000 },
  quick: { records: 50_000, accounts: 5_000 },
};

const PARALLELISMS = [1, 2, 4];
const BACKENDS = ['memory', 'level'];
/** Issue 27's targets: p1 against the script of its backend, p2 against p1 (2 threads, 2 cores). */
const TARGET_P1_VS_SCRIPT = 0.8;
const TARGET_P2_VS_P1 = 1.2;

/** The operator's code: the scripts' transfer, with the opening balance for a row not yet written. */
export const TRANSFER_CODE = `function keys(r) { return [['accounts', r.from], ['accounts', r.to]]; }
function transact(r, tx) {
  const from = tx.get('accounts', r.from) ?? ${OPENING_BALANCE};
  if (from < r.amount) {
    tx.abort('overdraft');
    tx.emit({ id: r.id, reason: 'overdraft' }, 'aborted');
    return;
  }
  const to = tx.get('accounts', r.to) ?? ${OPENING_BALANCE};
  tx.set('accounts', r.from, from - r.amount);
  tx.set('accounts', r.to, to + r.amount);
  tx.emit({ id: r.id, from: r.from, to: r.to, fromBalance: from - r.amount, toBalance: to + r.amount });
}`;

/** Threads for a parallelism: as many as it has subtasks, at most the machine's cores. */
const threadsFor = (parallelism) => Math.min(parallelism, os.cpus().length);

/**
 * Runs the suite. `ctx` gives run.mjs's `measure`, `verifyOutput` and `log`, the engine entry
 * measured, the work folders, and whether the engine runs a job at all.
 */
export async function transactionSuite(size, opt, ctx) {
  const { log } = ctx;
  const loadAtStart = os.loadavg()[0];
  const missing = engineMissing(ctx, 'transactions');
  if (missing) return missing;
  const d = transferData(size);
  log(
    `transactions: ${fmtInt(d.records)} transfers over ${fmtInt(d.accounts)} accounts ` +
      `(${fmtInt(d.aborted)} abort), parallelism ${PARALLELISMS.join(', ')} on ${BACKENDS.join(' and ')}`,
  );
  const rows = await ctx.measure(configs(d, ctx), measureOptions(opt));
  for (const r of rows) {
    const script = r.vs ? rows.find((x) => x.id === r.vs) : undefined;
    if (script?.rps && r.rps) r.vsScript = r.rps / script.rps;
    const p1 =
      r.parallelism > 1 ? rows.find((x) => x.backend === r.backend && x.parallelism === 1) : undefined;
    if (p1?.rps && r.rps) r.vsP1 = r.rps / p1.rps;
  }
  return {
    data: { records: d.records, accounts: d.accounts, aborted: d.aborted, bytes: d.bytes },
    rows,
    loadAtStart,
    loadAtEnd: os.loadavg()[0],
  };
}

function configs(d, ctx) {
  const verify = (out) => () => ctx.verifyOutput(out, transferCanon, d.expectedDigest);
  const baseline = (id, label, script, backend) =>
    scriptConfig(ctx, {
      id,
      label,
      script,
      backend,
      records: d.records,
      args: { in: d.path, ...(backend === 'level' ? { batch: 1000 } : {}) },
      verify: (out) => ctx.verifyOutput(out, transferCanon, d.expectedDigest),
    });

  const engine = (backend, parallelism, vs) => {
    const name = `transfers-${backend}-p${parallelism}`;
    const threads = threadsFor(parallelism);
    const jobPath = writeJob(
      join(ctx.jobsDir, `${name}.job.json`),
      transfersJob(name, d, backend, parallelism),
    );
    const stateDir = join(ctx.stateDir, name);
    const out = join(ctx.outDir, `${name}.jsonl`);
    return {
      id: `engine-${name}`,
      label: `engine: ${backend}, parallelism ${parallelism}, ${threads === 1 ? '1 thread' : `${threads} threads`}`,
      records: d.records,
      kind: 'engine',
      backend,
      parallelism,
      threads,
      vs,
      stateDir,
      prepare: () => clean(stateDir, out, join(ctx.jobsDir, '.pipewright')),
      run: () =>
        runEngine(jobPath, {
          entry: ctx.engineEntry,
          stateDir,
          timeoutMs: 15 * 60_000,
          extraArgs: ['--threads', String(threads)],
        }),
      verify: verify(out),
    };
  };
  const scripts = {
    memory: baseline('transfers-baseline-map', 'baseline: Map script', 'transfers-map.mjs', 'memory'),
    level: baseline(
      'transfers-baseline-level',
      'baseline: LevelDB script, getSync, 1000-key batches, one in flight',
      'transfers-level.mjs',
      'level',
    ),
  };
  return BACKENDS.flatMap((backend) => [
    scripts[backend],
    ...PARALLELISMS.map((p) => engine(backend, p, scripts[backend].id)),
  ]);
}

/** src -> ledger (transaction; hash by `from`, which the planner broadcasts) -> out, ports out and aborted. */
function transfersJob(name, d, backend, parallelism) {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { maxParallelism: 128, stateBackend: backend, checkpointIntervalMs: 0 },
    operators: [
      {
        id: 'src',
        kind: 'source.jsonl',
        parallelism: 1,
        params: { path: `../data/${d.path.split('/').pop()}` },
      },
      {
        id: 'ledger',
        kind: 'transaction',
        parallelism,
        params: { tables: ['accounts'], code: TRANSFER_CODE },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: `../out/${name}.jsonl` } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'ledger', partition: 'hash', key: 'from' },
      { id: 'e2', from: 'ledger', to: 'out', partition: 'rebalance' },
      { id: 'e3', from: 'ledger', fromPort: 'aborted', to: 'out', partition: 'rebalance' },
    ],
  };
}

// ---------------------------------------------------------------------------------------
// The docs section: its title starts with "### Transactions", as run.mjs's SECTION_SUITES knows it.

/** Whether a ratio meets its target, as a table cell. */
const meets = (x, target) => (x === undefined ? 'not measured' : x >= target ? 'met' : '**not met**');

export function transactionReport(t) {
  const L = ['### Transactions: transfers between accounts, two rows each', ''];
  if (t.error) return [...L, `**Not measured:** ${t.error}`, ''];
  const d = t.data;
  L.push(
    `${fmtInt(d.records)} transfers over ${fmtInt(d.accounts)} accounts (${fmtInt(d.aborted)} of them overdraw and abort), ` +
      '`source.jsonl -> transaction -> sink.jsonl`, checkpoints off.',
  );
  L.push('');
  L.push(
    '| implementation | records/s (best) | vs its script | vs parallelism 1 | best s | its CPU s | runs s | peak RSS | output |',
  );
  L.push('| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |');
  for (const r of t.rows) {
    L.push(
      `| ${r.label} | ${r.rps ? `**${fmtInt(r.rps)}**` : '—'} | ${fmtX(r.vsScript)} | ${fmtX(r.vsP1)} | ` +
        `${r.bestMs ? fmtS(r.bestMs) : '—'} | ${r.bestCpuMs ? fmtS(r.bestCpuMs) : '—'} | ` +
        `${r.times.map(fmtS).join(' / ') || '—'} | ${r.peakRssKb ? fmtMiB(r.peakRssKb) : '—'} | ${failedCell(r)} |`,
    );
  }
  L.push('');
  L.push("| the issue's target | memory | level |");
  L.push('| --- | --- | --- |');
  const row = (backend, parallelism) =>
    t.rows.find((r) => r.backend === backend && r.parallelism === parallelism);
  const cell = (x, target) => `${x ? `${x.toFixed(2)}×` : '—'}: ${meets(x, target)}`;
  L.push(
    `| parallelism 1 ≥ ${TARGET_P1_VS_SCRIPT}× the hand-written script | ` +
      `${BACKENDS.map((b) => cell(row(b, 1)?.vsScript, TARGET_P1_VS_SCRIPT)).join(' | ')} |`,
  );
  L.push(
    `| parallelism 2 ≥ ${TARGET_P2_VS_P1}× parallelism 1 (2 threads) | ` +
      `${BACKENDS.map((b) => cell(row(b, 2)?.vsP1, TARGET_P2_VS_P1)).join(' | ')} |`,
  );
  L.push('');
  L.push(
    'Parallelism p runs on `--threads min(p, cores)`. Every output (transfers and aborts in one file) is checked ' +
      'against the digest of a serial run made when the data was generated (bench/transferData.mjs).',
  );
  L.push('');
  L.push(...profileTable(t.rows));
  L.push(loadAverageLine(t.loadAtStart, t.loadAtEnd));
  L.push('');
  return L;
}
