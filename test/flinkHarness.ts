// What the Flink runner's tests share: the CLI's budget while it waits on Maven and a JVM, and
// outputs compared as Flink can keep them (each key's records in order, whatever the
// interleaving of keys across subtasks).
import path from 'node:path';
import { expect } from 'vitest';
import { copyExample, describeRun, readJsonl, runCli } from './cliHarness.js';

/** The first build of the runner compiles it (its jars are in ~/.m2): minutes on a busy machine. */
export const FLINK_TIMEOUT = 600_000;

/**
 * The CLI waits on Maven, on the JVM or on a cluster, using no CPU of its own meanwhile: its
 * budget counts the clock, not its CPU (test/childWork.ts).
 */
export const ON_FLINK = { timeoutMs: FLINK_TIMEOUT, idleMs: FLINK_TIMEOUT };

/** Each key's records, in order: a key's records go through one subtask, so this order holds on any engine. */
export function byKey(records: readonly Record<string, unknown>[], key: string): Map<unknown, string[]> {
  const groups = new Map<unknown, string[]>();
  for (const record of records) {
    const k = record[key];
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(JSON.stringify(record));
  }
  return groups;
}

/** An example's output from `pipewright run` on one thread. */
export async function localOutput(example: string, output: string): Promise<Record<string, unknown>[]> {
  const local = await copyExample(example);
  const ran = await runCli(['run', local.jobPath, '--quiet', '--threads', '1']);
  expect(ran.code, describeRun(ran)).toBe(0);
  return readJsonl<Record<string, unknown>>(path.join(local.dir, output));
}

/**
 * Runs an example with `pipewright flink` and the extra arguments, and checks it wrote the local
 * engine's output: the same records, each key's in the same order.
 */
export async function flinkMatchesLocal(
  example: string,
  output: string,
  key: string,
  args: readonly string[] = [],
): Promise<{ stdout: string; stderr: string }> {
  const expected = await localOutput(example, output);
  const flink = await copyExample(example);
  const onFlink = await runCli(['flink', flink.jobPath, ...args], ON_FLINK);
  expect(onFlink.code, describeRun(onFlink)).toBe(0);
  const actual = await readJsonl<Record<string, unknown>>(path.join(flink.dir, output));
  expect(actual.length).toBe(expected.length);
  expect(byKey(actual, key)).toEqual(byKey(expected, key));
  return onFlink;
}
