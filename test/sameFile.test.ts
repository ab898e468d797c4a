// Two operators on one file, through the real CLI: two sinks writing one file however each
// writes its path (relative, "./", absolute to the same place), or a sink writing the file a
// source reads, are refused by `validate` and `run` with a problem naming both operators, exit 1,
// and nothing written (issue 25: two sinks on one file lost half their records).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  pathExists,
  removeTempDirs,
  runCli,
  writeJob,
} from './cliHarness.js';

afterAll(removeTempDirs);

const INPUT = '{"n":1}\n{"n":2}\n';

/** events (input.jsonl) -> a and b, two sinks at these paths. */
function twoSinks(a: string, b: string): JobDocument {
  return {
    format: 'pipewright.job/1',
    name: 'same-file',
    operators: [
      { id: 'events', kind: 'source.jsonl', params: { path: 'input.jsonl' } },
      { id: 'a', kind: 'sink.jsonl', params: { path: a } },
      { id: 'b', kind: 'sink.jsonl', params: { path: b } },
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'a', partition: 'forward' },
      { id: 'e2', from: 'events', to: 'b', partition: 'forward' },
    ],
  };
}

async function jobIn(job: (dir: string) => JobDocument): Promise<{ dir: string; jobPath: string }> {
  const dir = await makeTempDir('pipewright-same-file-');
  const jobPath = path.join(dir, 'job.json');
  await writeJob(jobPath, job(dir));
  await writeFile(path.join(dir, 'input.jsonl'), INPUT);
  return { dir, jobPath };
}

describe('two operators on one file', () => {
  it.each([
    ['same.jsonl', './same.jsonl'],
    ['out/same.jsonl', 'out/../out//same.jsonl'],
    ['same.jsonl', '<dir>/same.jsonl'],
  ])('sinks at %s and %s: validate and run name both operators, exit 1, nothing written', async (a, b) => {
    const { dir, jobPath } = await jobIn((d) => twoSinks(a, b.replace('<dir>', d)));
    const checked = await runCli(['validate', 'job.json'], { cwd: dir });
    expect(checked.code, describeRun(checked)).toBe(1);
    expect(checked.stderr).toMatch(/operators "a" and "b" both write the file .*same\.jsonl/);
    // The file as the run would open it, against the job file's folder.
    expect(checked.stderr).toContain(JSON.stringify(path.resolve(dir, a)));
    const ran = await runCli(['run', jobPath], { cwd: dir });
    expect(ran.code, describeRun(ran)).toBe(1);
    expect(ran.stderr).toMatch(/operators "a" and "b" both write the file/);
    expect(await pathExists(path.join(dir, 'same.jsonl'))).toBe(false);
    expect(await pathExists(path.join(dir, 'out'))).toBe(false);
  });

  it('a sink writing the file a source reads: named, exit 1, the input left as it was', async () => {
    const { dir } = await jobIn(() => {
      const job = twoSinks('a.jsonl', 'b.jsonl');
      job.operators[2].params.path = './input.jsonl';
      return job;
    });
    const ran = await runCli(['run', 'job.json'], { cwd: dir });
    expect(ran.code, describeRun(ran)).toBe(1);
    expect(ran.stderr).toMatch(/operator "b" writes the file .*input\.jsonl.*which operator "events" reads/);
    expect(await readFile(path.join(dir, 'input.jsonl'), 'utf8')).toBe(INPUT);
  });
});
