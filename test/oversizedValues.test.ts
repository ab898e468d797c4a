// Values past what a job or a record may be, through the real CLI: each is one line naming who
// made it, exit status 1, instead of an uncaught RangeError, a line of thousands of characters
// cut before its reason, or a failure blamed on the sink that could not write it.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../engine/graph/validation/nestingRule.js';
import { MAX_DEPTH, MAX_RECORD_TEXT } from '../engine/runtime/recordCopy.js';
import { describeRun, makeTempDir, removeTempDirs, runCli } from './cliHarness.js';

afterAll(removeTempDirs);

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** in.jsonl -> m1 (map, `mapCode`) -> out.jsonl, with `extraParam` text added to the source's params. */
async function jobDir(input: string, mapCode: string, extraParam = ''): Promise<string> {
  const dir = await makeTempDir('pipewright-oversized-');
  await writeFile(path.join(dir, 'in.jsonl'), input);
  const operators = JSON.stringify([
    { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
    { id: 'm1', kind: 'map', params: { code: mapCode } },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ]).replace('"params":{"path":"in.jsonl"}', `"params":{"path":"in.jsonl"${extraParam}}`);
  // The deep value goes in as text: JSON.stringify of it would overflow this test's own stack.
  const text = `{"format":"pipewright.job/1","name":"oversized","settings":{"checkpointIntervalMs":0},"operators":${operators},"edges":[{"id":"e1","from":"src","to":"m1","partition":"forward"},{"id":"e2","from":"m1","to":"out","partition":"forward"}]}`;
  await writeFile(path.join(dir, 'job.json'), text);
  return dir;
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('values past what a job or a record may be', () => {
  it('params nested 3,000 deep: validate and run say one problem, exit 1', async () => {
    const dir = await jobDir('{"id":1}\n', 'function map(r) { return r; }', `,"x":${nested(3000)}`);
    const said = `job.json: operator "src": params.x nests objects and arrays too deep: a job file may nest them ${MAX_NESTING} levels at most ($.operators[0].params.x)`;
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, 'job.json'], { cwd: dir });
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr, describeRun(result)).toContain(said);
      expect(result.stderr).not.toMatch(/RangeError|\n\s+at /);
    }
  });

  it('a record nested 5,000 deep: the reason first, on a short line', async () => {
    const dir = await jobDir(`${nested(5000)}\n`, 'function map(r) { return r; }');
    const result = await runCli(['run', 'job.json', '--quiet'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    const [line, ...more] = lines(result.stderr);
    expect(more).toEqual([]);
    expect(line).toMatch(
      new RegExp(
        `^pipewright: operator "m1" failed on the record from in\\.jsonl:1: TypeError: the record map returned: record is nested deeper than ${MAX_DEPTH} levels, more than a record may be \\(at record(\\.a)+ … (\\.a)+, ${MAX_DEPTH} levels down\\)$`,
      ),
    );
    expect(line!.length).toBeLessThan(300);
  });

  it('a string too long for any sink to write is blamed on the map that made it', async () => {
    const dir = await jobDir(
      '{"id":1}\n',
      `function map(r) { return { id: r.id, s: 'x'.repeat(${MAX_RECORD_TEXT + 1}) }; }`,
    );
    const result = await runCli(['run', 'job.json', '--quiet'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(1);
    expect(lines(result.stderr)).toEqual([
      `pipewright: operator "m1" failed on the record from in.jsonl:1: TypeError: the record map returned: record.s is a string of ${MAX_RECORD_TEXT + 1} characters: a record may hold ${MAX_RECORD_TEXT} characters of text in all (its JSON must fit in one string)`,
    ]);
  });
});
