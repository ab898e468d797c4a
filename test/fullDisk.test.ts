// A full disk, on the real engine in this process (test/fullDisk.ts makes the file system say
// ENOSPC where a real full disk would). Under a sink.jsonl's output: publishing a checkpoint's
// records fails half-way through a record, over and over, while the checkpoint folder (on
// another disk) still takes files; a reader of the output must only ever see whole records, the
// checkpoints beyond checkpointsRetained must still go, and once the disk has room again the job
// ends with exactly its records, each once. Under the checkpoint folder: the checkpoints fail,
// then the run, in one line naming the folder, with every file it opened there closed.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { findCheckpoint } from '../engine/checkpoint/findCheckpoint.js';
import { JobRun } from '../engine/deploy/jobRun.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import { makeTempDir, removeTempDirs } from './cliHarness.js';
import { runJob } from './executors.js';
import { FullDisk } from './fullDisk.js';

afterAll(removeTempDirs);

const RECORDS = 6000;
const RETAINED = 3;

let disk: FullDisk | undefined;
afterEach(() => {
  disk?.uninstall();
  disk = undefined;
});

const COUNT_CODE = `function process(record, ctx) {
  const seen = ctx.state.value('seen');
  seen.set((seen.get() ?? 0) + 1);
  ctx.emit(record);
}`;

/**
 * numbers (a generator) -> out/out.jsonl; with `keyed`, through a count in LevelDB state (whose
 * checkpoints write state files). Checkpoints only when the test asks for them.
 */
function numbersJob(keyed = false) {
  const { job, problems } = validateJob({
    format: 'pipewright.job/1',
    name: 'full-disk',
    settings: { checkpointIntervalMs: 3_600_000, checkpointsRetained: RETAINED },
    operators: [
      {
        id: 'numbers',
        kind: 'source.generator',
        params: {
          count: RECORDS,
          code: 'function generate(i) { return { i, k: i % 10, text: "record " + i }; }',
        },
      },
      ...(keyed ? [{ id: 'count', kind: 'process', params: { code: COUNT_CODE } }] : []),
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out/out.jsonl' } },
    ],
    edges: keyed
      ? [
          { id: 'e1', from: 'numbers', to: 'count', partition: 'hash', key: 'k' },
          { id: 'e2', from: 'count', to: 'out', partition: 'forward' },
        ]
      : [{ id: 'e1', from: 'numbers', to: 'out', partition: 'forward' }],
  });
  expect(problems).toEqual([]);
  return job!;
}

/** What a reader of the output sees now: its lines, each a whole record, or a throw saying what is not. */
async function readWholeRecords(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (text === '') return [];
  if (!text.endsWith('\n'))
    throw new Error(`the output ends in a half record: …${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => (JSON.parse(line) as { i: number }).i);
}

const metadataFiles = async (dir: string) => (await readdir(dir)).filter((n) => /^chk-\d+\.json$/.test(n));

describe('a full disk under the output', () => {
  it.each([
    ['after two checkpoints were published', 2],
    ['from the first publication (which replaces the file)', 0],
  ])(
    '%s: only whole records in the output, old checkpoints go, and the job ends exactly once it has room',
    async (_, fullAfter) => {
      const dir = await makeTempDir('pipewright-full-disk-');
      const checkpointDir = path.join(dir, 'checkpoints');
      const out = path.join(dir, 'out', 'out.jsonl');
      disk = new FullDisk(path.join(dir, 'out'));
      await disk.install();
      const events: { id: number; status: string; reason?: string }[] = [];
      const run = await JobRun.open(numbersJob(), {
        jobDir: dir,
        stateDir: path.join(dir, 'state'),
        checkpointDir,
        onCheckpoint: (event) => events.push(event),
      });
      const seen: string[] = [];
      let lastWhole: number[] = [];
      try {
        for (let steps = 1; ; steps++) {
          if (steps % 2 === 0) {
            // Waits for the checkpoint before to have completed or failed, its publication with it.
            await run.requestCheckpoint();
            const completed = events.filter((e) => e.status === 'completed').length;
            const failed = events.filter((e) => e.status === 'failed').length;
            // `fullAfter` checkpoints published, then eight whose publication meets a full disk,
            // each with room for a third of a record first, then room again.
            disk.space = completed >= fullAfter && failed < 8 ? 10 : Number.POSITIVE_INFINITY;
            const whole = await readWholeRecords(out);
            // Nothing published is ever taken back, and nothing is published twice.
            expect(whole.slice(0, lastWhole.length)).toEqual(lastWhole);
            expect(whole).toEqual(whole.map((_, k) => k));
            lastWhole = whole;
            // A first publication that failed leaves nothing beside the output either (the
            // run's lock on the output aside).
            const beside = (await readdir(path.join(dir, 'out')).catch(() => [])).filter(
              (name) => name !== '.out.jsonl.lock',
            );
            expect(beside).toEqual(whole.length > 0 ? ['out.jsonl'] : []);
            const kept = await metadataFiles(checkpointDir).catch(() => []);
            expect(
              kept.length,
              `checkpoints ${events.map((e) => `${e.id} ${e.status}`).join(', ')}`,
            ).toBeLessThanOrEqual(RETAINED);
            seen.push(`${completed}/${failed}`);
          }
          if ((await run.step()) === undefined) break;
        }
        await run.completeSteps();
      } finally {
        await run.close();
      }
      const failures = events.filter((e) => e.status === 'failed');
      expect(failures.length, seen.join(' ')).toBe(8);
      expect(disk.refused).toBeGreaterThanOrEqual(8);
      for (const failure of failures) {
        expect(failure.reason).toBe(
          `operator "out": cannot write the output folder ${path.join(dir, 'out')} (no space left on device)`,
        );
      }
      expect(events.filter((e) => e.status === 'completed').length).toBeGreaterThan(fullAfter);
      expect(await readWholeRecords(out)).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
      expect((await metadataFiles(checkpointDir)).length).toBeLessThanOrEqual(RETAINED);
    },
  );
});

/**
 * Steps the keyed job with checkpoints every few steps; after two have completed, `disk` has room
 * for a few bytes only, until three have failed. What the run threw, if it did, and its events.
 */
async function runThroughFullDisk(dir: string, fullDisk: FullDisk) {
  const events: { id: number; status: string; reason?: string }[] = [];
  const run = await JobRun.open(numbersJob(true), {
    ...foldersOf(dir),
    onCheckpoint: (event) => events.push(event),
  });
  let failure: Error | undefined;
  try {
    for (let steps = 1; ; steps++) {
      if (steps % 3 === 0) {
        await run.requestCheckpoint();
        const completed = events.filter((e) => e.status === 'completed').length;
        const failed = events.filter((e) => e.status === 'failed').length;
        fullDisk.space = completed >= 2 && failed < 3 ? 10 : Number.POSITIVE_INFINITY;
      }
      if ((await run.step()) === undefined) break;
    }
    await run.completeSteps();
  } catch (error) {
    failure = error as Error;
  } finally {
    await run.close();
  }
  return { failure, events };
}

const foldersOf = (dir: string) => ({
  jobDir: dir,
  stateDir: path.join(dir, 'state'),
  checkpointDir: path.join(dir, 'checkpoints'),
});

const everyRecord = () => Array.from({ length: RECORDS }, (_, i) => i);

describe('a full disk under the checkpoint folder', () => {
  it('under the state files: those checkpoints fail with the reason, their files closed, and the job ends exactly', async () => {
    const dir = await makeTempDir('pipewright-full-state-disk-');
    const { checkpointDir } = foldersOf(dir);
    disk = new FullDisk(path.join(checkpointDir, 'data', 'count-0'));
    await disk.install();
    const { failure, events } = await runThroughFullDisk(dir, disk);
    expect(failure).toBeUndefined();
    const failed = events.filter((e) => e.status === 'failed');
    expect(failed).toHaveLength(3);
    for (const event of failed)
      expect(event.reason).toMatch(
        new RegExp(
          `^cannot write the checkpoint folder ${checkpointDir} \\(no space left on device: data/count-0/(changes|base)-\\d+\\.kv\\)$`,
        ),
      );
    // Every file the run opened there is closed, those whose writes failed too.
    expect([...disk.open]).toEqual([]);
    expect(await readWholeRecords(path.join(dir, 'out', 'out.jsonl'))).toEqual(everyRecord());
  });

  it('under the sink parts: a part short of its records fails the run in one line naming the folder; a restore ends exactly', async () => {
    const dir = await makeTempDir('pipewright-full-part-disk-');
    const { checkpointDir } = foldersOf(dir);
    disk = new FullDisk(path.join(checkpointDir, 'data', 'out-0'));
    await disk.install();
    const { failure } = await runThroughFullDisk(dir, disk);
    // The records of a part the disk refused exist nowhere else: the run cannot end exactly.
    expect(failure?.message).toMatch(
      new RegExp(
        `^operator "out": cannot write the checkpoint folder ${checkpointDir} \\(no space left on device: data/out-0/part-\\d+\\.jsonl\\)$`,
      ),
    );
    expect([...disk.open]).toEqual([]);
    // What was published is whole records, each once, in order.
    const published = await readWholeRecords(path.join(dir, 'out', 'out.jsonl'));
    expect(published).toEqual(everyRecord().slice(0, published.length));
    // With room again, the last checkpoint that completed restores and the job ends exactly.
    disk.space = Number.POSITIVE_INFINITY;
    const { checkpoint } = await findCheckpoint(checkpointDir, 'latest', () => {});
    expect(checkpoint?.id).toBe(2);
    await runJob('deterministic', numbersJob(true), { ...foldersOf(dir), restore: checkpoint! });
    expect(await readWholeRecords(path.join(dir, 'out', 'out.jsonl'))).toEqual(everyRecord());
  });
});
