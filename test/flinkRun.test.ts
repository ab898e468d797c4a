// `pipewright flink` end to end on an embedded MiniCluster (issue 28): the examples that need no
// feedback edge and no transaction give the local engine's output, record for record, each key's
// records in the order the local run wrote them; a user's error fails the job at once with the
// local engine's line. Needs java and mvn (the runner jar is built the first time, from ~/.m2).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyExample, describeRun, removeTempDirs, runCli } from './cliHarness.js';
import { FLINK_TIMEOUT, flinkMatchesLocal, ON_FLINK } from './flinkHarness.js';

afterAll(removeTempDirs);

describe('pipewright flink (MiniCluster)', () => {
  it(
    'runs word-count and bar-state to the local engine output',
    async () => {
      const run = await flinkMatchesLocal('word-count', 'out/word-counts.jsonl', 'word');
      expect(run.stdout).toMatch(/done: job "word-count" on Flink in [0-9.]+ s/);
      await flinkMatchesLocal('bar-state', 'out/bar-events-out.jsonl', 'barId');
    },
    2 * FLINK_TIMEOUT,
  );

  it(
    "fails a job whose code throws at once, in the local engine's words, writing no output",
    async () => {
      const copy = await copyExample('word-count');
      const job = JSON.parse(await readFile(copy.jobPath, 'utf8'));
      job.operators[2].params.code =
        'function process(record, ctx) { if (record.word === "stream") throw new RangeError("no " + record.word); ctx.emit(record); }';
      await writeFile(copy.jobPath, JSON.stringify(job));
      const result = await runCli(['flink', copy.jobPath, '--quiet'], ON_FLINK);
      expect(result.code, describeRun(result)).toBe(1);
      expect(result.stderr.trim()).toMatch(
        /^pipewright: operator "count" \(subtask [01] of 2\) failed: RangeError: no stream$/,
      );
      await expect(readFile(path.join(copy.dir, 'out/word-counts.jsonl'))).rejects.toThrow(/ENOENT/);
    },
    FLINK_TIMEOUT,
  );
});
