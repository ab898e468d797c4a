// Soak: state bigger than memory. The CLI (built into dist/ by `npm run build`, which `npm install`
// runs) runs a job under `node --max-old-space-size=96` whose LevelDB state ends up more than
// three times that heap, and its output is exactly right. The job is the "bar state" pattern:
// records keyed by a handful of bars, each bar's map state growing by one entry per record (a
// random 320-character string: fewer, larger entries reach 3x the heap sooner than ~200-byte
// ones would), a running count in value state, one output record per input record; at the end
// a query per bar walks its whole map and a few spot checks read entries back.
//
// Measured on the 2-core machine, 1,000,000 records: ~350 MB of state bytes (3.6x 96 MiB),
// ~343 MB on disk. The whole test took 43 s with one other CPU-heavy job beside it (load ~4)
// and 63 s under heavy contention (a benchmark and a second test run, load ~8); writing the
// input takes ~3 s of that, the child process the rest.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'bin', 'pipewright.js');
const BUILT_CLI = join(REPO, 'dist', 'engine', 'cli', 'main.js');

const HEAP_MB = 96;
const MIN_STATE_BYTES = 3 * HEAP_MB * 1024 * 1024;
const RECORDS = 1_000_000;
const BARS = 6;
const PAYLOAD_CHARS = 320;

// Incompressible (LevelDB compresses blocks with Snappy): 6 random bits per character.
const PAYLOAD_CODE = `const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
function payload(i) {
  let x = Math.imul(i, 0x9e3779b1) >>> 0;
  let s = '';
  for (let c = 0; c < ${PAYLOAD_CHARS}; c++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += ALPHABET[x >>> 26];
  }
  return s;
}`;
const payload = new Function(`${PAYLOAD_CODE}\nreturn payload;`)() as (i: number) => string;

const PROCESS_CODE = `${PAYLOAD_CODE}
async function process(r, ctx) {
  const foos = ctx.state.map('foos');
  const n = ctx.state.value('n');
  if (r.type === 'FooAdded') {
    foos.set(r.foo, payload(r.i));
    const count = (n.get() ?? 0) + 1;
    n.set(count);
    ctx.emit({ i: r.i, bar: r.bar, n: count });
  } else if (r.type === 'Get') {
    ctx.emit({ type: 'Got', bar: r.bar, foo: r.foo, value: foos.get(r.foo) ?? null });
  } else if (r.type === 'Count') {
    let counted = 0;
    let bytes = 0;
    for await (const value of foos.values()) {
      counted++;
      bytes += value.length;
    }
    ctx.emit({ type: 'Counted', bar: r.bar, counted, bytes, n: n.get() });
  }
}`;

const SPOT_CHECKS = [0, 1, 7, 4242, 654_321, RECORDS - 1];

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipewright-large-state-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes the input a megabyte at a time, waiting for the stream to drain. */
async function writeInput(path: string): Promise<void> {
  const out = createWriteStream(path);
  let chunk = '';
  const put = async (record: unknown) => {
    chunk += `${JSON.stringify(record)}\n`;
    if (chunk.length >= 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  };
  for (let i = 0; i < RECORDS; i++)
    await put({ type: 'FooAdded', i, bar: `bar-${i % BARS}`, foo: `foo-${i}` });
  for (const i of SPOT_CHECKS) await put({ type: 'Get', bar: `bar-${i % BARS}`, foo: `foo-${i}` });
  await put({ type: 'Get', bar: 'bar-0', foo: 'foo-1' }); // foo-1 belongs to bar-1
  for (let b = 0; b < BARS; b++) await put({ type: 'Count', bar: `bar-${b}` });
  out.end(chunk);
  await once(out, 'finish');
}

async function directorySize(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? await directorySize(full) : (await stat(full)).size;
  }
  return total;
}

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, CLI, ...args], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr }));
  });
}

describe('large state', () => {
  it(`a job whose LevelDB state is at least 3x the heap runs under node --max-old-space-size=${HEAP_MB} and is right`, async () => {
    if (!existsSync(BUILT_CLI)) {
      throw new Error(
        `${BUILT_CLI} is missing: build the engine first (\`npm run build\`; \`npm test\` does it)`,
      );
    }
    const job = {
      format: 'pipewright.job/1',
      name: 'large-state',
      settings: { stateBackend: 'level', checkpointIntervalMs: 0 },
      operators: [
        { id: 'events', kind: 'source.jsonl', params: { path: 'events.jsonl' } },
        { id: 'bars', kind: 'process', parallelism: 2, params: { code: PROCESS_CODE } },
        { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
      ],
      edges: [
        { id: 'by-bar', from: 'events', to: 'bars', partition: 'hash', key: 'bar' },
        { id: 'to-out', from: 'bars', to: 'out', partition: 'rebalance' },
      ],
    };
    const jobPath = join(dir, 'large-state.job.json');
    await writeFile(jobPath, JSON.stringify(job, null, 2));
    await writeInput(join(dir, 'events.jsonl'));
    const metricsPath = join(dir, 'metrics.jsonl');

    const result = await runCli(['run', jobPath, '--quiet', '--metrics', metricsPath]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');

    // The state: by the engine's count, and on disk.
    const metricsLines = (await readFile(metricsPath, 'utf8')).trim().split('\n');
    const final = JSON.parse(metricsLines[metricsLines.length - 1]!) as {
      final: boolean;
      status: string;
      operators: { id: string; recordsIn: number; stateEntries?: number; stateBytes?: number }[];
    };
    expect(final.final).toBe(true);
    expect(final.status).toBe('finished');
    const bars = final.operators.find((op) => op.id === 'bars')!;
    const extraRecords = SPOT_CHECKS.length + 1 + BARS;
    expect(bars.recordsIn).toBe(RECORDS + extraRecords);
    // One map entry per record plus one count per bar.
    expect(bars.stateEntries).toBe(RECORDS + BARS);
    expect(bars.stateBytes).toBeGreaterThan(MIN_STATE_BYTES);
    const stateDir = join(dir, '.pipewright', 'large-state', 'state');
    expect(await directorySize(stateDir)).toBeGreaterThan(MIN_STATE_BYTES);

    // The output: one record per input, each bar's count running 1, 2, 3, ... in input order.
    const counts = new Map<string, number>();
    const got: { bar: string; foo: string; value: string | null }[] = [];
    const counted: { bar: string; counted: number; bytes: number; n: number }[] = [];
    let lines = 0;
    const input = createInterface({ input: createReadStream(join(dir, 'out.jsonl')), crlfDelay: Infinity });
    for await (const line of input) {
      lines++;
      const record = JSON.parse(line) as { type?: string; i: number; bar: string; n: number };
      if (record.type === 'Got') got.push(record as never);
      else if (record.type === 'Counted') counted.push(record as never);
      else {
        const n = (counts.get(record.bar) ?? 0) + 1;
        counts.set(record.bar, n);
        if (
          record.bar !== `bar-${record.i % BARS}` ||
          record.n !== n ||
          Math.floor(record.i / BARS) + 1 !== n
        ) {
          throw new Error(`wrong output ${line} (expected n ${n})`);
        }
      }
    }
    expect(lines).toBe(RECORDS + extraRecords);
    const perBar = (b: number) => Math.floor(RECORDS / BARS) + (b < RECORDS % BARS ? 1 : 0);
    expect(Object.fromEntries(counts)).toEqual(
      Object.fromEntries(Array.from({ length: BARS }, (_, b) => [`bar-${b}`, perBar(b)])),
    );
    // Every bar's whole map read back from LevelDB, far more than the heap could hold.
    expect(counted.sort((a, b) => (a.bar < b.bar ? -1 : 1))).toEqual(
      Array.from({ length: BARS }, (_, b) => ({
        type: 'Counted',
        bar: `bar-${b}`,
        counted: perBar(b),
        bytes: perBar(b) * PAYLOAD_CHARS,
        n: perBar(b),
      })),
    );
    // Spot checks (the two subtasks' answers may interleave, so compare them sorted).
    const order = (r: { foo: string; bar: string }) => `${r.foo}@${r.bar}`;
    expect(got.sort((a, b) => (order(a) < order(b) ? -1 : 1))).toEqual(
      [
        ...SPOT_CHECKS.map((i) => ({
          type: 'Got',
          bar: `bar-${i % BARS}`,
          foo: `foo-${i}`,
          value: payload(i),
        })),
        { type: 'Got', bar: 'bar-0', foo: 'foo-1', value: null },
      ].sort((a, b) => (order(a) < order(b) ? -1 : 1)),
    );
  }, 240_000);
});
