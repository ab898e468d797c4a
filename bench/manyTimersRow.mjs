// The event-time suite's "2M timers under a 96 MB heap" row (issue 26): the job of
// test/manyTimers.test.ts at its soak size, timed like every other row of the bench, so that
// the issue's table comes from one run. Each of 20,000 keys sets 100 event-time timers, latest
// first; all wait for the end of input and fire then, each key's in time order.

import { join } from 'node:path';
import { MultisetDigest } from './data.mjs';
import { clean, runEngine, writeJob } from './engineRun.mjs';

export const MANY_TIMERS_SIZES = {
  full: { keys: 20_000, perKey: 100 },
  quick: { keys: 2_000, perKey: 20 },
};

/** The issue's bound on the run's wall time at full size. */
export const MANY_TIMERS_TARGET_S = 20;

const HEAP_MB = 96;

function manyTimersJob(name, { keys, perKey }) {
  return {
    format: 'pipewright.job/1',
    name,
    settings: { checkpointIntervalMs: 0, stateBackend: 'level' },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: {
          code: `function generate(i) { return { k: 'k' + (i % ${keys}), t: Math.floor(i / ${keys}) }; }`,
          count: keys * perKey,
          timestampField: 't',
        },
      },
      {
        id: 'timers',
        kind: 'process',
        params: {
          code: [
            'function process(r, ctx) { ctx.timers.eventTime(1100 - r.t); }',
            'function onTimer(ts, ctx) {',
            "  const last = ctx.state.value('last');",
            "  const n = ctx.state.value('n');",
            '  if (last.get() !== undefined && last.get() >= ts) ctx.emit({ key: ctx.key, outOfOrder: ts });',
            '  last.set(ts);',
            '  const count = (n.get() ?? 0) + 1;',
            '  n.set(count);',
            `  if (count === ${perKey}) ctx.emit({ key: ctx.key, fired: count, last: ts });`,
            '}',
          ].join('\n'),
        },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: `../out/${name}.jsonl` } },
    ],
    edges: [
      { id: 'in', from: 'gen', to: 'timers', partition: 'hash', key: 'k' },
      { id: 'to-out', from: 'timers', to: 'out', partition: 'forward' },
    ],
  };
}

const canon = (o) => `${o.key}\u0000${o.fired}\u0000${o.last}\u0000${o.outOfOrder}`;

/** The row as a configuration `measure` runs; `ctx` as the event-time suite's. */
export function manyTimersConfig(size, ctx) {
  const name = 'many-timers';
  const jobPath = writeJob(join(ctx.jobsDir, `${name}.job.json`), manyTimersJob(name, size));
  const stateDir = join(ctx.stateDir, name);
  const out = join(ctx.outDir, `${name}.jsonl`);
  // Every key reports once, after its last timer, at 1100; an out-of-order firing adds a line.
  const expected = new MultisetDigest();
  for (let k = 0; k < size.keys; k++) expected.add(canon({ key: `k${k}`, fired: size.perKey, last: 1100 }));
  return {
    id: 'engine-many-timers',
    label: `engine: level, ${HEAP_MB} MB heap (\`--max-old-space-size=${HEAP_MB}\`), parallelism 1, 1 thread`,
    records: size.keys * size.perKey,
    kind: 'engine',
    backend: 'level',
    stateDir,
    prepare: () => clean(stateDir, out, join(ctx.jobsDir, '.pipewright')),
    run: () =>
      runEngine(jobPath, {
        entry: ctx.engineEntry,
        stateDir,
        nodeFlags: [`--max-old-space-size=${HEAP_MB}`],
        timeoutMs: 15 * 60_000,
        extraArgs: ['--threads', '1'],
      }),
    verify: () => ctx.verifyOutput(out, canon, expected.toString()),
  };
}

const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const fmtS = (ms) => (ms / 1000).toFixed(2);
const fmtMiB = (kb) => `${(kb / 1024).toFixed(0)} MiB`;

/** The row's part of the event-time section. */
export function manyTimersReport(m) {
  const L = [
    `#### ${fmtInt(m.keys * m.perKey)} timers under a ${HEAP_MB} MB heap: ${fmtInt(m.keys)} keys × ${m.perKey}, ` +
      'all waiting for the end of input',
    '',
    '| implementation | best s | timers/s (best) | its CPU s | runs s | peak RSS | output |',
    '| --- | ---: | ---: | ---: | --- | ---: | --- |',
  ];
  for (const r of m.rows) {
    const failed = r.error ? `FAILED: ${r.error.replaceAll('|', '\\|')}` : r.times.length ? 'ok' : '—';
    L.push(
      `| ${r.label} | ${r.bestMs ? `**${fmtS(r.bestMs)}**` : '—'} | ${r.rps ? fmtInt(r.rps) : '—'} | ` +
        `${r.bestCpuMs ? fmtS(r.bestCpuMs) : '—'} | ${r.times.map(fmtS).join(' / ') || '—'} | ` +
        `${r.peakRssKb ? fmtMiB(r.peakRssKb) : '—'} | ${failed} |`,
    );
  }
  L.push('');
  L.push(
    "test/manyTimers.test.ts's job at the soak tier's size, timed spawn to exit: `source.generator` makes " +
      'record i as key i mod keys at time ⌊i / keys⌋, each record sets a timer at 1100 − its time (so a ' +
      "key's timers are set latest first), and every timer waits in LevelDB for the end of input; `onTimer` " +
      'counts its key and checks the order, and each key reports once. The output is checked against one ' +
      `line per key. The issue's target: at most ${MANY_TIMERS_TARGET_S} s at full size.`,
  );
  L.push('');
  return L;
}
