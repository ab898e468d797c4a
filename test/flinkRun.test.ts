// `pipewright flink` end to end on an embedded MiniCluster (issue 28): the examples that need no
// feedback edge and no transaction give the local engine's output, record for record, each key's
// records in the order the local run wrote them; a user's error fails the job at once with the
// local engine's line. Needs java and mvn (the runner jar is built the first time, from ~/.m2).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyExample, describeRun, readJsonl, removeTempDirs, runCli } from './cliHarness.js';

afterAll(removeTempDirs);

/** The first build of the runner fetches nothing (CI's ~/.m2 holds Flink) but compiles: minutes on a busy machine. */
const FLINK_TIMEOUT = 600_000;
/**
 * The CLI waits on Maven and on the JVM, its children, using no CPU of its own meanwhile: its
 * budget counts the clock, not its CPU (test/childWork.ts).
 */
const ON_FLINK = { timeoutMs: FLINK_TIMEOUT, idleMs: FLINK_TIMEOUT };

/** Each key's records, in order: a key's records go through one subtask, so this order holds on any engine. */
function byKey(records: readonly Record<string, unknown>[], key: string): Map<unknown, string[]> {
  const groups = new Map<unknown, string[]>();
  for (const record of records) {
    const k = record[key];
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(JSON.stringify(record));
  }
  return groups;
}

async function localAndFlink(example: string, output: string, key: string) {
  const local = await copyExample(example);
  const ran = await runCli(['run', local.jobPath, '--quiet', '--threads', '1']);
  expect(ran.code, describeRun(ran)).toBe(0);
  const expected = await readJsonl<Record<string, unknown>>(path.join(local.dir, output));
  const flink = await copyExample(example);
  const onFlink = await runCli(['flink', flink.jobPath], ON_FLINK);
  expect(onFlink.code, describeRun(onFlink)).toBe(0);
  expect(onFlink.stdout).toMatch(new RegExp(`done: job "${example}" on Flink in [0-9.]+ s`));
  const actual = await readJsonl<Record<string, unknown>>(path.join(flink.dir, output));
  expect(actual.length).toBe(expected.length);
  expect(byKey(actual, key)).toEqual(byKey(expected, key));
  return flink;
}

describe('pipewright flink (MiniCluster)', () => {
  it(
    'runs word-count and bar-state to the local engine output',
    async () => {
      await localAndFlink('word-count', 'out/word-counts.jsonl', 'word');
      await localAndFlink('bar-state', 'out/bar-events-out.jsonl', 'barId');
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
