// A full disk under a sink.jsonl's output, on the real engine in this process (test/fullDisk.ts
// makes the file system say ENOSPC where a real full disk would): publishing a checkpoint's
// records fails half-way through a record, over and over, while the checkpoint folder (on
// another disk) still takes files. A reader of the output must only ever see whole records,
// the checkpoints beyond checkpointsRetained must still go, and once the disk has room again
// the job ends with exactly its records, each once.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JobRun } from '../engine/deploy/jobRun.js';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import { makeTempDir, removeTempDirs } from './cliHarness.js';
import { FullDisk } from './fullDisk.js';

afterAll(removeTempDirs);

const RECORDS = 6000;
const RETAINED = 3;

let disk: FullDisk | undefined;
afterEach(() => {
  disk?.uninstall();
  disk = undefined;
});

/** numbers (a generator) -> out/out.jsonl; checkpoints only when the test asks for them. */
function numbersJob() {
  const { job, problems } = validateJob({
    format: 'pipewright.job/1',
    name: 'full-disk',
    settings: { checkpointIntervalMs: 3_600_000, checkpointsRetained: RETAINED },
    operators: [
      {
        id: 'numbers',
        kind: 'source.generator',
        params: { count: RECORDS, code: 'function generate(i) { return { i, text: "record " + i }; }' },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out/out.jsonl' } },
    ],
    edges: [{ id: 'e1', from: 'numbers', to: 'out', partition: 'forward' }],
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
