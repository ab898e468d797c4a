// The debugger's step back against the size of the keyed state (see docs/benchmarks.md): how long
// `DebugSession.stepBack()` takes on a job whose LevelDB state is 10 MB, side by side in the same
// run with one step forward, with opening the job, and with opening it again and stepping to the
// same place (what going back by a replay from the start would cost at least).
//
// The job: a source.generator makes record i; i < N loads key k<i> with a 1000-character value p
// (N = 10,000: 9.8 MiB of state as the engine counts it, the checkpoint suite's "10 MB"), i >= N
// updates key k<i mod W> with a new p. A keyed `process` keeps {n, p} per key in value state and
// emits {k, n} to a sink. The session steps forward until N + UPDATES records have gone through
// (so the state is 10 MB and changing), then steps back BACKS times in a row, timing each, then
// steps forward as many times, timing each. Rows: preview sinks without checkpoints; preview
// sinks with a checkpoint every 1000 steps (the default for checkpointIntervalMs 1000), whose
// barriers and files the step backs cross; a sink writing its file, with those checkpoints.
//
// Every measurement runs in a child process (SES lockdown changes the process that loads the
// engine): `node bench/stepBack.mjs --child ENGINE_DIST ROW` prints one JSON line. Run it alone
// with `node bench/stepBack.mjs [--quick] [--engine DIST]`; bench/run.mjs calls stepBackSuite().
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_FILE = fileURLToPath(import.meta.url);
const REPO_DIR = resolve(BENCH_FILE, '..', '..');

export const VALUE_CHARS = 1000;

const GENERATOR_CODE = ({ keys, workingSet }) =>
  [
    `const N = ${keys}, W = ${workingSet}, V = ${VALUE_CHARS};`,
    "const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';",
    'let x = 2463534242; const parts = [];',
    'for (let i = 0; i < 1048576; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; parts.push(A[(x >>> 0) & 63]); }',
    "const POOL = parts.join('');",
    'function generate(i, ctx) {',
    '  const o = Math.floor(ctx.random() * (POOL.length - V));',
    "  return { k: 'k' + (i < N ? i : i % W), p: POOL.slice(o, o + V) };",
    '}',
  ].join('\n');

const PROCESS_CODE =
  "function process(r, ctx) { const s = ctx.state.value('v'); const a = s.get(); " +
  'const n = a === undefined ? 1 : a.n + 1; s.set({ n, p: r.p }); ctx.emit({ k: r.k, n }); }';

function stepBackJob({ keys, workingSet, checkpointIntervalMs }) {
  return {
    format: 'pipewright.job/1',
    name: 'step-back',
    settings: { maxParallelism: 128, stateBackend: 'level', checkpointIntervalMs, checkpointsRetained: 2 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: { code: GENERATOR_CODE({ keys, workingSet }), count: 1e9, seed: 1 },
      },
      { id: 'state', kind: 'process', params: { code: PROCESS_CODE } },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'state', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'state', to: 'out', partition: 'forward' },
    ],
  };
}

/** The rows measured: what differs is how the run can go back. */
export function stepBackRows({ quick = false } = {}) {
  const keys = quick ? 1000 : 10_000;
  const base = {
    keys,
    workingSet: Math.max(1, keys / 10),
    updates: quick ? 300 : 2000,
    backs: quick ? 32 : 256,
  };
  return [
    {
      name: 'preview sinks, no checkpoints',
      ...base,
      checkpointIntervalMs: 0,
      previewSinks: true,
      reopen: true,
    },
    {
      name: 'preview sinks, a checkpoint every 1000 steps',
      ...base,
      checkpointIntervalMs: 1000,
      previewSinks: true,
    },
    {
      name: 'sink writing its file, a checkpoint every 1000 steps',
      ...base,
      checkpointIntervalMs: 1000,
      previewSinks: false,
    },
  ];
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const median =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  return { min: sorted[0], median, max: sorted.at(-1), runs: sorted.length };
}

/** In the child: one row, measured. */
async function measure(engineDist, row) {
  const { DebugSession } = await import(
    pathToFileURL(join(engineDist, 'engine', 'debug', 'debugSession.js')).href
  );
  const { validateJob } = await import(
    pathToFileURL(join(engineDist, 'engine', 'graph', 'validate.js')).href
  );
  const { job, problems } = validateJob(stepBackJob(row));
  if (problems.length > 0) throw new Error(`the bench's job is invalid: ${JSON.stringify(problems)}`);
  const dir = mkdtempSync(join(tmpdir(), 'pipewright-stepback-'));
  try {
    const options = {
      job,
      jobDir: dir,
      stateDir: join(dir, 'state'),
      checkpointDir: join(dir, 'checkpoints'),
      previewSinks: row.previewSinks,
    };
    let started = performance.now();
    const session = await DebugSession.open(options);
    const openMs = performance.now() - started;
    const recordsIn = (s) => s.metrics().operators.find((o) => o.id === 'state');
    const target = row.keys + row.updates;
    started = performance.now();
    // A source's slice is made whole and shown record by record: step in chunks, check now and then.
    while (recordsIn(session).recordsIn < target) for (let i = 0; i < 256; i++) await session.step();
    const forwardSeconds = (performance.now() - started) / 1000;
    const state = recordsIn(session);
    const position = session.position;
    const backs = [];
    for (let i = 0; i < row.backs; i++) {
      const t = performance.now();
      const view = await session.stepBack();
      backs.push(performance.now() - t);
      if (view === undefined || view.seq !== position - i - 1) {
        throw new Error(`step back ${i + 1} from step ${position} showed step ${view?.seq}`);
      }
    }
    const forwards = [];
    for (let i = 0; i < row.backs; i++) {
      const t = performance.now();
      await session.step();
      forwards.push(performance.now() - t);
    }
    const replaysFromStart = session.replaysFromStart;
    await session.close();
    let reopenMs;
    if (row.reopen) {
      started = performance.now();
      const again = await DebugSession.open({ ...options, stateDir: join(dir, 'state-again') });
      while (again.position < position - 1) await again.step();
      reopenMs = performance.now() - started;
      await again.close();
    }
    return {
      name: row.name,
      keys: row.keys,
      valueChars: VALUE_CHARS,
      checkpointIntervalMs: row.checkpointIntervalMs,
      previewSinks: row.previewSinks,
      stateBytes: state.stateBytes,
      stateEntries: state.stateEntries,
      position,
      forwardStepsPerSecond: Math.round(position / forwardSeconds),
      stepBackMs: summary(backs),
      replaysFromStart,
      baseline: {
        stepForwardMs: summary(forwards),
        openMs,
        ...(reopenMs === undefined ? {} : { openAndStepToTheStepBeforeMs: reopenMs }),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(engineDist, row) {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, [BENCH_FILE, '--child', engineDist, JSON.stringify(row)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`step back bench "${row.name}" exited with ${code}`));
      try {
        resolvePromise(JSON.parse(out.trim().split('\n').at(-1)));
      } catch (error) {
        reject(new Error(`step back bench "${row.name}" printed no result: ${error.message}`));
      }
    });
  });
}

/**
 * The suite: each row in its own child process, one after the other. Returns per row
 * { stateBytes, stepBackMs: { min, median, max, runs }, baseline: { stepForwardMs, openMs }, ... }.
 */
export async function stepBackSuite({
  engineDist = join(REPO_DIR, 'dist'),
  quick = false,
  log = () => {},
} = {}) {
  const results = [];
  for (const row of stepBackRows({ quick })) {
    log(`step back: ${row.name}`);
    results.push(await child(engineDist, row));
  }
  return results;
}

if (process.argv[1] === BENCH_FILE) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    const result = await measure(args[1], JSON.parse(args[2]));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    const engineAt = args.indexOf('--engine');
    const engineDist = engineAt >= 0 ? resolve(args[engineAt + 1]) : join(REPO_DIR, 'dist');
    const results = await stepBackSuite({ engineDist, quick: args.includes('--quick'), log: console.error });
    for (const r of results) console.log(JSON.stringify(r));
  }
}
