// The transaction examples (assets/examples/ledger and owner-has-items-tx) run end to end through
// the real CLI on LevelDB, on one thread and on two, and produce exactly what a plain serial
// program computes from the same input: the records one at a time, in file order, over Maps.
// At parallelism 1 a job runs on one thread whatever --threads says (threadsFor), on the
// deterministic executor: that run is made in this process. (test/examples.test.ts checks them
// for tidiness and that `validate` accepts them.)
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateJob } from '../engine/graph/validation/validateJob.js';
import {
  copyExample,
  describeRun,
  examplesDir,
  type JobDocument,
  type OwnerEvent,
  readJob,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
} from './cliHarness.js';
import { runJob } from './executors.js';
import { depositedTotal, type LedgerRecord, serialLedger } from './transactionJobs.js';

afterAll(removeTempDirs);

/** How each example runs: through the CLI at its own parallelism (4) on 1 and 2 threads, and at parallelism 1. */
const RUNS = [
  { how: '--threads 1', threads: 1, parallelism: 4 },
  { how: '--threads 2', threads: 2, parallelism: 4 },
  { how: 'in this process', threads: 'in this process', parallelism: 1 },
] as const;

type Row = Record<string, unknown>;

/**
 * Copies the example, lets `change` alter the copy, runs it (through the CLI with --threads, or in
 * this process on the deterministic executor), and reads the two sinks.
 */
async function runExample(
  name: string,
  sinks: readonly [string, string],
  threads: number | 'in this process',
  change?: (job: JobDocument, dir: string) => Promise<void>,
): Promise<[Row[], Row[]]> {
  const { dir, jobPath } = await copyExample(name);
  if (change) {
    const job = await readJob(jobPath);
    await change(job, dir);
    await writeJob(jobPath, job);
  }
  if (threads === 'in this process') {
    const { job, problems } = validateJob(await readJob(jobPath));
    expect(problems).toEqual([]);
    await runJob('deterministic', job!, { jobDir: dir, stateDir: path.join(dir, 'state') });
  } else {
    const result = await runCli(['run', jobPath, '--quiet', '--threads', String(threads)], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
  }
  return [await readJsonl<Row>(path.join(dir, sinks[0])), await readJsonl<Row>(path.join(dir, sinks[1]))];
}

const setParallelism = (id: string, parallelism: number) => async (job: JobDocument) => {
  (job.operators as JobDocument[]).find((op) => op.id === id)!.parallelism = parallelism;
};

const byId = (rows: readonly Row[]) => [...rows].sort((a, b) => (a.id as number) - (b.id as number));

// ---------------------------------------------------------------------------------------- ledger

describe.concurrent('ledger', () => {
  const input = () => readJsonl<LedgerRecord>(path.join(examplesDir, 'ledger', 'transfers.jsonl'));

  it('the input has deposits, transfers that go through, transfers that abort, and audits', async () => {
    const records = await input();
    const { out, aborted } = serialLedger(records);
    expect(records.length).toBeGreaterThanOrEqual(300);
    expect(aborted.length).toBeGreaterThan(20);
    expect(out.filter((r) => 'fromBalance' in r).length).toBeGreaterThan(aborted.length);
    expect(records.filter((r) => 'audit' in r).length).toBeGreaterThan(10);
  });

  it.each(RUNS)(
    '$how, parallelism $parallelism: the serial program output, no money made or lost',
    async ({ threads, parallelism }) => {
      const records = await input();
      const expected = serialLedger(records);
      const [out, aborted] = await runExample(
        'ledger',
        ['out/ledger.jsonl', 'out/aborted.jsonl'],
        threads,
        setParallelism('ledger', parallelism),
      );
      expect(byId(out)).toEqual(byId(expected.out));
      expect(byId(aborted)).toEqual(byId(expected.aborted));
      // The audits at the end read every account.
      const audited = new Map<string, number>();
      for (const row of byId(out))
        if (typeof row.account === 'string') audited.set(row.account, row.balance as number);
      expect(audited).toEqual(expected.balances);
      expect([...audited.values()].reduce((a, b) => a + b, 0)).toBe(depositedTotal(records));
    },
  );
});

// ---------------------------------------------------------------------------- owner-has-items-tx

/** The serial program: who owns each item, which items each owner has; one record per change. */
function serialOwnership(events: readonly OwnerEvent[]): { out: Row[]; rejected: Row[] } {
  const ownerOf = new Map<string, string>();
  const itemsOf = new Map<string, string[]>();
  const out: Row[] = [];
  const rejected: Row[] = [];
  const withItem = (owner: string, item: string) => [...(itemsOf.get(owner) ?? []), item].sort();
  for (const e of events) {
    const current = ownerOf.get(e.item);
    if (e.type === 'add') {
      if (current !== undefined) {
        rejected.push({ ...e, reason: `${e.item} already belongs to ${current}` });
        continue;
      }
      const items = withItem(e.owner, e.item);
      ownerOf.set(e.item, e.owner);
      itemsOf.set(e.owner, items);
      out.push({ event: 'owned', owner: e.owner, item: e.item, seq: e.seq, items });
      continue;
    }
    const from = e.from!;
    const to = e.to!;
    if (current !== from) {
      rejected.push({ ...e, reason: `${e.item} belongs to ${current ?? 'nobody'}, not ${from}` });
      continue;
    }
    const left = (itemsOf.get(from) ?? []).filter((i) => i !== e.item);
    itemsOf.set(from, left);
    const items = withItem(to, e.item);
    itemsOf.set(to, items);
    ownerOf.set(e.item, to);
    out.push({ event: 'released', owner: from, item: e.item, to, seq: e.seq, items: left });
    out.push({ event: 'owned', owner: to, item: e.item, from, seq: e.seq, items });
  }
  return { out, rejected };
}

/** Changes in one order whatever the interleaving: by seq, a release before its owned. */
const bySeq = (rows: readonly Row[]) =>
  [...rows].sort((a, b) => (a.seq as number) - (b.seq as number) || (a.event === 'released' ? -1 : 1));

describe.concurrent('owner-has-items-tx', () => {
  const input = () => readJsonl<OwnerEvent>(path.join(examplesDir, 'owner-has-items-tx', 'events.jsonl'));
  const SINKS = ['out/ownership.jsonl', 'out/rejected.jsonl'] as const;

  it("reads the feedback-edge version's events, then one stale move that is rejected", async () => {
    const feedback = await readJsonl<OwnerEvent>(path.join(examplesDir, 'owner-has-items', 'events.jsonl'));
    const events = await input();
    expect(events.slice(0, -1)).toEqual(feedback);
    expect(serialOwnership(events).rejected.map((r) => r.seq)).toEqual([events.length]);
  });

  /** A move from the owner the item just left, an add of an item that exists, then a good move. */
  function contradicting(events: readonly OwnerEvent[]): OwnerEvent[] {
    const last = events.length;
    // The last move that went through (the input's last event is a stale one).
    const moved = events.slice(0, -1).findLast((e) => e.type === 'move')!;
    return [
      { seq: last + 1, type: 'move', owner: moved.from!, item: moved.item, from: moved.from!, to: 'o99' },
      { seq: last + 2, type: 'add', owner: 'o98', item: moved.item },
      { seq: last + 3, type: 'move', owner: moved.to!, item: moved.item, from: moved.to!, to: 'o99' },
    ];
  }

  // The example's events, then three that contradict the tables: what the example gives is the
  // output's beginning (the serial program's, one stale move rejected), and each of the three
  // aborts with the reason, changing nothing.
  it.each(RUNS)(
    '$how, parallelism $parallelism: one owned per add, a released and an owned per move, as the serial program says; events that contradict the tables abort with the reason, changing nothing',
    async ({ threads, parallelism }) => {
      const events = await input();
      expect(serialOwnership(events).rejected).toHaveLength(1);
      const extra = contradicting(events);
      const expected = serialOwnership([...events, ...extra]);
      const last = events.length;
      expect(expected.rejected.map((r) => r.seq)).toEqual([last, last + 1, last + 2]);
      const [out, rejected] = await runExample('owner-has-items-tx', SINKS, threads, async (job, dir) => {
        await setParallelism('ownership', parallelism)(job);
        await appendFile(path.join(dir, 'events.jsonl'), extra.map((e) => `${JSON.stringify(e)}\n`).join(''));
      });
      expect(bySeq(out)).toEqual(bySeq(expected.out));
      expect(bySeq(rejected)).toEqual(bySeq(expected.rejected));
    },
  );
});
