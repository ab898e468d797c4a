// Checkpoints through the real CLI: a keyed aggregation and owner-has-items (round its feedback
// edge) killed with kill -9 and restored with `--restore latest` end with exactly the output of a
// run that never failed; the same at many fixed failure points in this process, also restored at
// other parallelisms; damaged checkpoints are skipped with their reason; incremental checkpoints
// persist what changed; checkpoints change nothing in the output; SIGTERM stops at a checkpoint
// of its own, even while checkpoint 1 completes;
// a restore into a changed job is refused or accepted as it should be. Kills at random moments,
// at full size: checkpoints.soak.test.ts.
import { existsSync } from 'node:fs';
import { open, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGG_OUTPUT, aggJob as aggJobOf, aggOutputLines, writeAggInput } from './aggJob.js';
import {
  checkpointLines,
  crashAndRestore,
  describeAttempts,
  describeDifference,
  describeResult,
  expectRestoredToEnd,
  finish,
  inspectCheckpointDir,
  type KillPlan,
  multisetDifference,
  outputLines,
  randomFor as randomForSeed,
  readMetadata,
  referencedFiles,
  runToEnd,
  startCli,
  testSeed,
  waitUntil,
} from './checkpointHelpers.js';
import { type JobDocument, makeTempDir, removeTempDirs, writeJob } from './cliHarness.js';
import { type Baseline, type JobCase, makeJobCase, runBaseline, sinkPathsOf } from './jobCase.js';
import { foldOwnership, isWaiting, ownersJob as ownersJobOf, writeOwnerEvents } from './ownerEvents.js';
import {
  describeStepAttempts,
  expectFailedAndRestored,
  failAndRestore,
  failurePoints,
  wholeRunSteps,
} from './stepFailures.js';

afterAll(removeTempDirs);

const seed = testSeed('failure points');

const randomFor = (label: string) => randomForSeed(seed, label);

// ------------------------------------------------------------------------------- the two jobs

const AGG_RECORDS = 100_000;
const AGG_KEYS = 2_000;
/**
 * The SIGTERM test's input: its run must still be going two checkpoints in (a 100,000-record run
 * once ended first, on a quiet moment of a loaded machine).
 */
const LONG_AGG_RECORDS = 400_000;

const OWNER_EVENTS = 12_000;

/** The keyed aggregation of test/aggJob.ts, its sink at parallelism 1, reading `input`. */
const aggJob = ({
  input,
  intervalMs,
  parallelism = 1,
}: {
  input: string;
  intervalMs: number;
  parallelism?: number;
}) => aggJobOf(input, { intervalMs, parallelism });

/**
 * The example job (test/ownerEvents.ts), on one thread unless asked. On one thread (the
 * deterministic executor) its output is the same bytes from run to run. On several, its
 * feedback edge and its input race, as its description says: which moves find their item not
 * there yet ("waiting" lines) depends on timing, while what it owns and releases (the effects)
 * does not.
 */
const ownersJob = (events: string, intervalMs: number, threads = 1) =>
  ownersJobOf(events, intervalMs, threads);

/** Lines that are effects of the owner-has-items job: every line but its "waiting" ones. */
const effects = (all: readonly string[]) => all.filter((line) => !isWaiting(line));

type Case = JobCase;
const makeCase = (label: string, job: JobDocument) => makeJobCase(`chk-${label}`, job);

let fixtures: string;
let aggInput: string;
let aggBaseline: Baseline;
let ownerEvents: string;
let finalOwners: Map<string, string>;
let ownersBaseline: Baseline;

beforeAll(async () => {
  fixtures = await makeTempDir('pipewright-chk-inputs-');
  aggInput = path.join(fixtures, 'records.jsonl');
  writeAggInput(aggInput, AGG_RECORDS, AGG_KEYS);
  ownerEvents = path.join(fixtures, 'owner-events.jsonl');
  finalOwners = writeOwnerEvents(ownerEvents, OWNER_EVENTS).owners;
  // The runs that never fail, without checkpoints at all.
  aggBaseline = await runBaseline('agg-baseline', aggJob({ input: aggInput, intervalMs: 0 }));
  expect(aggBaseline.lines).toHaveLength(AGG_RECORDS);
  // What a clean run writes, computed: the SIGTERM test's longer input is checked against it.
  expect(aggBaseline.lines).toEqual(aggOutputLines(AGG_RECORDS, AGG_KEYS));
  ownersBaseline = await runBaseline('owners-baseline', await ownersJob(ownerEvents, 0));
  expect(foldOwnership(ownersBaseline.lines)).toEqual(finalOwners);
});

/** The output equals the never-failed run's, as a multiset of lines. */
async function expectSameOutput(c: Case, baseline: Baseline, context: string): Promise<string[]> {
  const lines = await outputLines(c.outPath);
  const difference = describeDifference(lines, baseline.lines);
  expect(difference, `${context}\n${difference}`).toBe('');
  return lines;
}

// ------------------------------------------------------------------------------------- tests

describe('kill -9, then --restore latest until done', () => {
  // One real kill of the whole process per job: right after a checkpoint completes, then, in the
  // restored run, while a checkpoint is being written. Both come early in their run, so they land
  // however fast or loaded the machine is. Kills at random moments: checkpoints.soak.test.ts.
  const kills: KillPlan[] = [
    { delayMs: 0, afterCheckpoint: true },
    { delayMs: 0, duringCheckpoint: true },
  ];

  it('a keyed aggregation ends with exactly the output of a run that never failed', async () => {
    const c = await makeCase('kill-agg', aggJob({ input: aggInput, intervalMs: 50 }));
    const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    expect(
      attempts[1]!.killedWhileWriting,
      `the second kill hit a checkpoint being written\n${context}`,
    ).not.toEqual([]);
    await expectSameOutput(c, aggBaseline, context);
  });

  it('owner-has-items, round its feedback edge, ends with exactly the output of a run that never failed', async () => {
    const c = await makeCase('kill-owners', await ownersJob(ownerEvents, 50));
    const attempts = await crashAndRestore({ ...c, cwd: c.dir, kills });
    const context = describeAttempts(attempts);
    expectRestoredToEnd(attempts, 2, context);
    const lines = await expectSameOutput(c, ownersBaseline, context);
    expect(foldOwnership(lines)).toEqual(finalOwners);
  });
});

describe('a failure at a fixed step, then a restore from the latest checkpoint (in this process)', () => {
  // The same exactly-once check at many points, each the same on every run: checkpoints every
  // so many steps, and failures at steps of a seeded PRNG, inside checkpoints too (barriers on
  // their way). test/stepFailures.ts says how a failure is made.
  it('a keyed aggregation, restored at parallelism 3, 2 and 1, ends exactly', async () => {
    const parallelismOf = [1, 3, 2, 1];
    const job = (attempt: number) =>
      aggJob({ input: aggInput, intervalMs: 100, parallelism: parallelismOf[attempt] ?? 1 });
    const steps = await wholeRunSteps(await makeTempDir('pipewright-chk-steps-agg-'), job(0), 20);
    const dir = await makeTempDir('pipewright-chk-steps-agg-');
    const attempts = await failAndRestore({
      jobDir: dir,
      job,
      checkpointEverySteps: 20,
      failAtSteps: failurePoints(randomFor('keyed aggregation'), 3, steps, 20),
    });
    expectFailedAndRestored(attempts, 3);
    const lines = await outputLines(path.join(dir, AGG_OUTPUT));
    expect(describeDifference(lines, aggBaseline.lines), describeStepAttempts(attempts)).toBe('');
  });

  it('owner-has-items, round its feedback edge, ends exactly', async () => {
    const job = await ownersJob(ownerEvents, 100);
    const steps = await wholeRunSteps(await makeTempDir('pipewright-chk-steps-owners-'), job, 2);
    const dir = await makeTempDir('pipewright-chk-steps-owners-');
    const attempts = await failAndRestore({
      jobDir: dir,
      job: () => job,
      checkpointEverySteps: 2,
      failAtSteps: failurePoints(randomFor('owner-has-items'), 4, steps, 2),
    });
    expectFailedAndRestored(attempts, 4);
    // Stepped in run()'s slices and order, so byte for byte the run that never failed.
    const lines = await outputLines(path.resolve(dir, sinkPathsOf(job)[0]!));
    expect(describeDifference(lines, ownersBaseline.lines), describeStepAttempts(attempts)).toBe('');
    expect(foldOwnership(lines)).toEqual(finalOwners);
  });
});

/** Runs the job until `count` checkpoints have completed, then kills it with SIGKILL. */
async function killAfterCheckpoints(c: Case, count: number): Promise<number[]> {
  const run = startCli(['run', c.jobPath, '--trust'], c.dir);
  const reached = await waitUntil(() => inspectCheckpointDir(c.checkpointDir).completed.length >= count, {
    run,
    timeoutMs: 60_000,
  });
  if (!run.exited()) run.child.kill('SIGKILL');
  const result = await finish(run, 30_000, 'a run to kill');
  expect(reached, `no ${count} checkpoints before the run ended\n${describeResult(result)}`).toBe(true);
  expect(result.signal).toBe('SIGKILL');
  return inspectCheckpointDir(c.checkpointDir).completed;
}

/** A file `id` names that `others` do not, with some bytes; state files first. */
function ownFile(
  c: Case,
  id: number,
  others: readonly number[],
  kind: RegExp,
): { path: string; bytes: number } {
  const shared = new Set(
    others.flatMap((o) => referencedFiles(readMetadata(c.checkpointDir, o)).map((r) => r.path)),
  );
  const own = referencedFiles(readMetadata(c.checkpointDir, id)).filter(
    (ref) => !shared.has(ref.path) && ref.bytes > 1 && kind.test(path.basename(ref.path)),
  );
  expect(own, `checkpoint ${id} names no file of its own matching ${kind}`).not.toHaveLength(0);
  return own[0]!;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('damaged checkpoints', () => {
  it('skips a truncated and a corrupted checkpoint, naming each and why, and restores the one before', async () => {
    const c = await makeCase('damaged', aggJob({ input: aggInput, intervalMs: 100 }));
    const [newest, second, third] = await killAfterCheckpoints(c, 3);
    expect(third, 'three checkpoints retained').toBeDefined();
    // The newest checkpoint: one of its own state files loses its second half.
    const truncated = ownFile(c, newest!, [second!, third!], /^(base|changes)-/);
    const keptBytes = Math.floor(truncated.bytes / 2);
    await truncate(path.join(c.checkpointDir, truncated.path), keptBytes);
    // The one before: a byte of its own sink part flips (same size, other content).
    const flipped = ownFile(c, second!, [newest!, third!], /^part-/);
    const handle = await open(path.join(c.checkpointDir, flipped.path), 'r+');
    try {
      const at = Math.floor(flipped.bytes / 2);
      const byte = Buffer.alloc(1);
      await handle.read(byte, 0, 1, at);
      byte[0] = byte[0] === 0x31 ? 0x32 : 0x31;
      await handle.write(byte, 0, 1, at);
    } finally {
      await handle.close();
    }
    const outputBefore = await readFile(c.outPath, 'utf8').catch(() => '');

    // Naming a damaged checkpoint is an error, with the reason.
    const explicitNewest = await runToEnd(['run', c.jobPath, '--trust', '--restore', String(newest)], c.dir);
    expect(explicitNewest.code, describeResult(explicitNewest)).toBe(1);
    expect(explicitNewest.stderr).toMatch(new RegExp(`checkpoint ${newest}\\b`));
    expect(explicitNewest.stderr).toContain(truncated.path);
    // Why: the size the file has and the size the checkpoint recorded.
    expect(explicitNewest.stderr).toMatch(new RegExp(`\\b${keptBytes}\\b.*\\b${truncated.bytes}\\b`));
    const explicitSecond = await runToEnd(['run', c.jobPath, '--trust', '--restore', String(second)], c.dir);
    expect(explicitSecond.code, describeResult(explicitSecond)).toBe(1);
    expect(explicitSecond.stderr).toMatch(new RegExp(`checkpoint ${second}\\b`));
    expect(explicitSecond.stderr).toContain(flipped.path);
    expect(explicitSecond.stderr).toMatch(/corrupt|checksum/i);
    // ... and leaves the output alone.
    expect(await readFile(c.outPath, 'utf8').catch(() => '')).toBe(outputBefore);

    const latest = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(latest.code, describeResult(latest)).toBe(0);
    const skipNewest = new RegExp(
      `checkpoint ${newest}\\b.*${escapeRegExp(truncated.path)}.*\\b${keptBytes}\\b.*\\b${truncated.bytes}\\b`,
    );
    const skipSecond = new RegExp(
      `checkpoint ${second}\\b.*${escapeRegExp(flipped.path)}.*(corrupt|checksum)`,
      'i',
    );
    const lines = latest.stderr.split('\n');
    expect(
      lines.find((l) => /skip/i.test(l) && skipNewest.test(l)),
      latest.stderr,
    ).toBeDefined();
    expect(
      lines.find((l) => /skip/i.test(l) && skipSecond.test(l)),
      latest.stderr,
    ).toBeDefined();
    expect(latest.stderr).toMatch(new RegExp(`restoring checkpoint ${third}\\b`));
    await expectSameOutput(c, aggBaseline, `restored from checkpoint ${third}`);
  }, 120_000);

  it('skips a checkpoint whose metadata has one bit flipped (a split position), and --restore ID refuses it', async () => {
    const c = await makeCase('flipped-metadata', aggJob({ input: aggInput, intervalMs: 100 }));
    const [newest, second] = await killAfterCheckpoints(c, 2);
    // The source's position in checkpoint `newest`: its last digit gets its lowest bit flipped
    // ("start": 5350 -> 5351), which leaves the metadata valid JSON of the same length.
    const file = path.join(c.checkpointDir, `chk-${newest}.json`);
    const text = await readFile(file, 'utf8');
    const at = /"start": (\d+)/.exec(text);
    expect(at, text).not.toBeNull();
    const digit = at!.index + at![0].length - 1;
    const flipped =
      text.slice(0, digit) + String.fromCharCode(text.charCodeAt(digit) ^ 1) + text.slice(digit + 1);
    await writeFile(file, flipped);
    const outputBefore = await readFile(c.outPath, 'utf8').catch(() => '');

    const explicit = await runToEnd(['run', c.jobPath, '--trust', '--restore', String(newest)], c.dir);
    expect(explicit.code, describeResult(explicit)).toBe(1);
    expect(explicit.stderr).toMatch(new RegExp(`checkpoint ${newest}\\b.*metadata.*(corrupt|checksum)`, 'i'));
    expect(await readFile(c.outPath, 'utf8').catch(() => '')).toBe(outputBefore);

    const latest = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(latest.code, describeResult(latest)).toBe(0);
    expect(latest.stderr).toMatch(
      new RegExp(`skip.*checkpoint ${newest}\\b.*metadata.*(corrupt|checksum)`, 'i'),
    );
    expect(latest.stderr).toMatch(new RegExp(`restoring checkpoint ${second}\\b`));
    await expectSameOutput(c, aggBaseline, `restored from checkpoint ${second}`);
  }, 120_000);

  it('says so and starts fresh when no checkpoint is usable; --restore ID of a broken one exits 1', async () => {
    const c = await makeCase('all-damaged', aggJob({ input: aggInput, intervalMs: 100 }));
    const completed = await killAfterCheckpoints(c, 3);
    // Every checkpoint loses the last byte of its own sink part.
    const damaged = new Map<number, string>();
    for (const id of completed) {
      const part = ownFile(
        c,
        id,
        completed.filter((o) => o !== id),
        /^part-/,
      );
      await truncate(path.join(c.checkpointDir, part.path), part.bytes - 1);
      damaged.set(id, part.path);
    }

    const explicit = await runToEnd(['run', c.jobPath, '--trust', '--restore', String(completed[0])], c.dir);
    expect(explicit.code, describeResult(explicit)).toBe(1);
    expect(explicit.stderr).toMatch(new RegExp(`checkpoint ${completed[0]}\\b`));
    expect(explicit.stderr).toContain(damaged.get(completed[0]!)!);

    const latest = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(latest.code, describeResult(latest)).toBe(0);
    for (const [id, file] of damaged) {
      expect(latest.stderr).toMatch(new RegExp(`skip.*checkpoint ${id}\\b.*${escapeRegExp(file)}`, 'i'));
    }
    expect(latest.stderr).toMatch(/starting fresh/);
    expect(latest.stderr).not.toMatch(/restoring checkpoint/);
    await expectSameOutput(c, aggBaseline, 'after a fresh start');
  }, 120_000);
});

describe('incremental checkpoints', () => {
  it('persist less than 10% of a 50 MB state when only ~100 keys keep changing', async () => {
    const loadKeys = 200_000;
    // 200k keys with ~290-character values, loaded first; then only 100 of them change, for ever.
    const generate = `function generate(i) {
  const pad = 'abcdefghijklmnopqrstuvwxyz'.repeat(11);
  const key = i < ${loadKeys} ? i : (i % 100) * 1999;
  return { k: 'k' + key, v: pad + String(i).padStart(12, '0') };
}`;
    const job: JobDocument = {
      format: 'pipewright.job/1',
      name: 'big-state',
      settings: {
        maxParallelism: 128,
        stateBackend: 'level',
        checkpointIntervalMs: 250,
        checkpointsRetained: 2,
      },
      operators: [
        { id: 'gen', kind: 'source.generator', parallelism: 1, params: { code: generate } },
        {
          id: 'store',
          kind: 'process',
          parallelism: 1,
          params: {
            code: "function process(record, ctx) {\n  ctx.state.value('v').set(record.v);\n}",
          },
        },
      ],
      edges: [{ id: 'gen-store', from: 'gen', to: 'store', partition: 'hash', key: 'k' }],
    };
    const c = await makeCase('big-state', job);
    const run = startCli(['run', c.jobPath, '--trust', '--metrics', c.metricsPath], c.dir);
    const small = (line: { bytes: number; fullBytes: number }) => line.bytes < 0.1 * line.fullBytes;
    // Run until three checkpoints in a row of the whole state are small (or give up).
    const settled = await waitUntil(
      () => {
        const done = checkpointLines(c.metricsPath).filter((l) => l.status === 'completed');
        const last = done.slice(-3);
        return (
          last.length === 3 &&
          last.every((l) => l.fullBytes >= 50 * 1024 * 1024 && l.fullBytes === last[0]!.fullBytes && small(l))
        );
      },
      { run, timeoutMs: 60_000, everyMs: 100 },
    );
    run.child.kill('SIGTERM');
    const result = await finish(run, 60_000, 'the big-state run');
    const lines = checkpointLines(c.metricsPath);
    const table = lines
      .map((l) => `  ${l.id} ${l.status} ${Math.round(l.durationMs)} ms: ${l.bytes} of ${l.fullBytes} bytes`)
      .join('\n');
    console.log(`big state checkpoints:\n${table}`);
    expect(result.code, describeResult(result)).toBe(0);
    expect(settled, `checkpoints never got small:\n${table}`).toBe(true);
    expect(
      lines.filter((l) => l.status === 'failed'),
      table,
    ).toEqual([]);
    // The checkpoints of the whole state: after the tail of the load (its changes), every one
    // persists what changed, less than 10% of the state, but for one new base at most. A base
    // comes once the changes since the last one outgrow it twice (stateSnapshots.ts); the load's
    // tail can bring that about a few checkpoints later on a loaded machine. A base holds it all.
    const full = Math.max(...lines.map((l) => l.fullBytes));
    expect(full).toBeGreaterThanOrEqual(50 * 1024 * 1024);
    const loaded = lines.filter((l) => l.status === 'completed' && l.fullBytes === full);
    expect(loaded.length, table).toBeGreaterThanOrEqual(3);
    const bases = loaded.slice(2).filter((l) => !small(l));
    expect(bases.length, table).toBeLessThanOrEqual(1);
    for (const base of bases) expect(base.bytes, table).toBeGreaterThanOrEqual(full);
    expect(loaded.filter(small).length, table).toBeGreaterThanOrEqual(3);
    // What they do persist is the state's changes, not nothing: the 100 keys.
    for (const l of loaded.slice(2)) {
      const store = l.subtasks.find((s) => s.operator === 'store')!;
      expect(store.bytes, table).toBeGreaterThan(100 * 250);
    }
  }, 150_000);
});

describe('checkpoints do not change the output', () => {
  it('a keyed aggregation with checkpoints every 50 ms writes the same bytes as one without', async () => {
    const c = await makeCase('every-50', aggJob({ input: aggInput, intervalMs: 50 }));
    const result = await runToEnd(['run', c.jobPath, '--trust', '--metrics', c.metricsPath], c.dir);
    expect(result.code, describeResult(result)).toBe(0);
    expect(checkpointLines(c.metricsPath).filter((l) => l.status === 'completed').length).toBeGreaterThan(2);
    const text = await readFile(c.outPath, 'utf8');
    expect(
      text === aggBaseline.text,
      describeDifference(text.split('\n'), aggBaseline.text.split('\n')),
    ).toBe(true);
  }, 90_000);

  it('owner-has-items on 2 threads, with checkpoints every 200 ms, has the same effects as without', async () => {
    const c = await makeCase('owners-200-threads', await ownersJob(ownerEvents, 200, 2));
    const result = await runToEnd(['run', c.jobPath, '--trust', '--metrics', c.metricsPath], c.dir, 60_000);
    expect(result.code, describeResult(result)).toBe(0);
    expect(checkpointLines(c.metricsPath).filter((l) => l.status === 'completed').length).toBeGreaterThan(2);
    const lines = await outputLines(c.outPath);
    expect(describeDifference(effects(lines), effects(ownersBaseline.lines))).toBe('');
    expect(foldOwnership(lines)).toEqual(finalOwners);
  }, 90_000);

  // Every 50 ms: at 200 ms a run on Node 24 once ended after two checkpoints, fewer than asked.
  it('owner-has-items with checkpoints every 50 ms writes the same bytes as without', async () => {
    const c = await makeCase('owners-50', await ownersJob(ownerEvents, 50));
    const result = await runToEnd(['run', c.jobPath, '--trust', '--metrics', c.metricsPath], c.dir, 60_000);
    expect(result.code, describeResult(result)).toBe(0);
    expect(checkpointLines(c.metricsPath).filter((l) => l.status === 'completed').length).toBeGreaterThan(2);
    const text = await readFile(c.outPath, 'utf8');
    expect(
      text === ownersBaseline.text,
      describeDifference(text.split('\n'), ownersBaseline.text.split('\n')),
    ).toBe(true);
  }, 90_000);
});

/** Runs until `count` checkpoints have completed, then SIGTERM; the run must stop cleanly. */
async function stopAfterCheckpoints(c: Case, count: number): Promise<void> {
  const run = startCli(['run', c.jobPath, '--trust', '--metrics', c.metricsPath], c.dir);
  const reached = await waitUntil(
    () => checkpointLines(c.metricsPath).filter((l) => l.status === 'completed').length >= count,
    { run, timeoutMs: 60_000 },
  );
  run.child.kill('SIGTERM');
  const result = await finish(run, 60_000, 'a run stopped with SIGTERM');
  expect(reached, `no ${count} checkpoints before the run ended\n${describeResult(result)}`).toBe(true);
  expect(result.code, describeResult(result)).toBe(0);
  expect(result.stderr).toMatch(/SIGTERM/);
}

/** The size of the output once checkpoint `id` has published its parts. */
function committedSize(c: Case, id: number): number {
  const sink = (readMetadata(c.checkpointDir, id).sinks as JobDocument[])[0]!.payload as JobDocument;
  return (
    Math.max(0, sink.committedLength as number) +
    (sink.parts as { bytes: number }[]).reduce((n, part) => n + part.bytes, 0)
  );
}

describe('SIGTERM', () => {
  it('stops with exit 0 and only committed output; --restore latest completes it exactly', async () => {
    const longInput = path.join(fixtures, 'long-records.jsonl');
    writeAggInput(longInput, LONG_AGG_RECORDS, AGG_KEYS);
    const expected = aggOutputLines(LONG_AGG_RECORDS, AGG_KEYS);
    const c = await makeCase('sigterm', aggJob({ input: longInput, intervalMs: 100 }));
    await stopAfterCheckpoints(c, 2);
    const stopped = await outputLines(c.outPath);
    expect(stopped.length, 'stopped mid-run').toBeGreaterThan(0);
    expect(stopped.length, 'stopped mid-run').toBeLessThan(expected.length);
    // Only committed records: a part of the full output, and exactly what the last checkpoint published.
    const { extra } = multisetDifference(stopped, expected);
    expect(extra.slice(0, 5), `${extra.length} lines are not in the full output`).toEqual([]);
    const newest = inspectCheckpointDir(c.checkpointDir).completed[0]!;
    expect((await stat(c.outPath)).size, `the size checkpoint ${newest} committed`).toBe(
      committedSize(c, newest),
    );

    const restored = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    expect(restored.stderr).toMatch(new RegExp(`restoring checkpoint ${newest}\\b`));
    const lines = await outputLines(c.outPath);
    const difference = describeDifference(lines, expected);
    expect(difference, `restored from checkpoint ${newest}\n${difference}`).toBe('');
  }, 90_000);

  it('while checkpoint 1 completes: takes a checkpoint of its own and stops at it', async () => {
    // Its metadata is in place and its parts are being published (a few MB: some ms) when the
    // signal comes. The stop used to end the run at checkpoint 1, which cut the job before it.
    // (engine/deploy/stopCheckpoint.test.ts hits that moment exactly, in-process.)
    const c = await makeCase('sigterm-first', aggJob({ input: aggInput, intervalMs: 100 }));
    const run = startCli(['run', c.jobPath, '--trust'], c.dir);
    const written = await waitUntil(() => existsSync(path.join(c.checkpointDir, 'chk-1.json')), {
      run,
      timeoutMs: 60_000,
      everyMs: 1,
    });
    run.child.kill('SIGTERM');
    const result = await finish(run, 60_000, 'a run stopped with SIGTERM');
    expect(written, `checkpoint 1 never completed\n${describeResult(result)}`).toBe(true);
    expect(result.code, describeResult(result)).toBe(0);
    const newest = inspectCheckpointDir(c.checkpointDir).completed[0]!;
    expect(newest, `the stop's own checkpoint\n${describeResult(result)}`).toBeGreaterThan(1);
    expect((await stat(c.outPath)).size, `the size checkpoint ${newest} committed`).toBe(
      committedSize(c, newest),
    );
    const restored = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    await expectSameOutput(c, aggBaseline, `restored from checkpoint ${newest}`);
  }, 90_000);
});

describe('a restore into a changed job', () => {
  it('refuses a job without the keyed operator, or with its key changed, naming the operator', async () => {
    const c = await makeCase('refuse', aggJob({ input: aggInput, intervalMs: 100 }));
    await stopAfterCheckpoints(c, 2);
    const outputBefore = await readFile(c.outPath, 'utf8');

    const removed = aggJob({ input: aggInput, intervalMs: 100 });
    removed.operators = (removed.operators as JobDocument[]).filter((op) => op.id !== 'agg');
    removed.edges = [{ id: 'src-out', from: 'src', to: 'out', partition: 'forward' }];
    await writeJob(c.jobPath, removed);
    const withoutAgg = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(withoutAgg.code, describeResult(withoutAgg)).toBe(1);
    expect(withoutAgg.stderr).toMatch(/"agg"/);
    expect(withoutAgg.stderr).toMatch(/state/);

    const rekeyed = aggJob({ input: aggInput, intervalMs: 100 });
    (rekeyed.edges as JobDocument[])[0]!.key = 'seq';
    await writeJob(c.jobPath, rekeyed);
    const newKey = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(newKey.code, describeResult(newKey)).toBe(1);
    expect(newKey.stderr).toMatch(/"agg"/);
    expect(newKey.stderr).toMatch(/key/);

    // Refusing touched nothing: the original job still restores and completes exactly.
    expect(await readFile(c.outPath, 'utf8')).toBe(outputBefore);
    await writeJob(c.jobPath, aggJob({ input: aggInput, intervalMs: 100 }));
    const original = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(original.code, describeResult(original)).toBe(0);
    await expectSameOutput(c, aggBaseline, 'the unchanged job restored after the refusals');
  }, 120_000);

  it('accepts a new stateless operator (a map before the sink)', async () => {
    const c = await makeCase('add-map', aggJob({ input: aggInput, intervalMs: 100 }));
    await stopAfterCheckpoints(c, 2);
    const job = aggJob({ input: aggInput, intervalMs: 100 });
    (job.operators as JobDocument[]).splice(2, 0, {
      id: 'copy',
      kind: 'map',
      parallelism: 1,
      params: { code: 'function map(record) {\n  return { ...record };\n}' },
    });
    job.edges = [
      (job.edges as JobDocument[])[0]!,
      { id: 'agg-copy', from: 'agg', to: 'copy', partition: 'rebalance' },
      { id: 'copy-out', from: 'copy', to: 'out', partition: 'forward' },
    ];
    await writeJob(c.jobPath, job);
    const restored = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    expect(restored.stderr).toMatch(/restoring checkpoint \d+/);
    await expectSameOutput(c, aggBaseline, 'restored with a map added');
  }, 90_000);

  it('accepts another parallelism of the keyed operator', async () => {
    const c = await makeCase('rescale-stop', aggJob({ input: aggInput, intervalMs: 100 }));
    await stopAfterCheckpoints(c, 2);
    await writeJob(c.jobPath, aggJob({ input: aggInput, intervalMs: 100, parallelism: 4 }));
    const restored = await runToEnd(['run', c.jobPath, '--trust', '--restore', 'latest'], c.dir);
    expect(restored.code, describeResult(restored)).toBe(0);
    expect(restored.stderr).toMatch(/restoring checkpoint \d+/);
    await expectSameOutput(c, aggBaseline, 'restored at parallelism 4');
  }, 90_000);
});
