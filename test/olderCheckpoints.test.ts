// Checkpoints written by earlier versions restore into this one, each made by `pipewright run` of
// its version stopped with SIGTERM after its second checkpoint: format 2 (test/fixtures/
// checkpoint-v2, the version before connector state: its file and generator splits, keyed state
// and sink parts are migrated as they are read) and format 3 (test/fixtures/checkpoint-v3, the
// version before the metadata had a checksum of its own). Each run ends with exactly the output
// of a run that never stopped.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDifference, describeResult, outputLines, runToEnd } from './checkpointHelpers.js';
import { repoRoot } from './cliHarness.js';

/** The jobs' input, as the fixtures' runs read it (not kept in the fixtures: it is made the same). */
function input(): string {
  const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ k: `a${i % 4}`, v: i }));
  return `${lines.join('\n')}\n`;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pipewright-older-checkpoints-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([2, 3])('a format %i checkpoint', (format) => {
  const fixture = path.join(repoRoot, 'test', 'fixtures', `checkpoint-v${format}`);

  it('restores: the run ends with exactly the output of a run that never stopped', async () => {
    const clean = path.join(dir, `clean-${format}`);
    await cp(path.join(fixture, 'job.json'), path.join(clean, 'job.json'));
    await writeFile(path.join(clean, 'in.jsonl'), input());
    const cleanRun = await runToEnd(['run', 'job.json', '--quiet'], clean);
    expect(cleanRun.code, describeResult(cleanRun)).toBe(0);
    const expected = await outputLines(path.join(clean, 'out.jsonl'));

    const restored = path.join(dir, `restored-${format}`);
    await cp(fixture, restored, { recursive: true });
    await writeFile(path.join(restored, 'in.jsonl'), input());
    const metadata = JSON.parse(await readFile(path.join(restored, 'checkpoints', 'chk-2.json'), 'utf8'));
    expect(metadata.format).toBe(`pipewright.checkpoint/${format}`);
    expect(metadata.crc32, 'older formats have no checksum of their metadata').toBeUndefined();
    const before = await outputLines(path.join(restored, 'out.jsonl'));
    expect(before.length, 'the fixture stopped mid-run').toBeGreaterThan(0);
    expect(before.length, 'the fixture stopped mid-run').toBeLessThan(expected.length);

    const run = await runToEnd(
      ['run', 'job.json', '--restore', 'latest', '--checkpoint-dir', 'checkpoints', '--state-dir', 'state'],
      restored,
    );
    expect(run.code, describeResult(run)).toBe(0);
    expect(run.stderr).toMatch(/restoring checkpoint 2\b/);
    const after = await outputLines(path.join(restored, 'out.jsonl'));
    expect(describeDifference(after, expected)).toBe('');
  });
});
