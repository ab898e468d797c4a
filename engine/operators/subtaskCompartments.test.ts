// What user code of one subtask can reach, through real runs: its top-level variables are its
// own (each subtask compiles the code in a Compartment of its own), and the state handles ctx
// gives it are frozen like the rest of ctx. On both executors: on worker threads each thread
// compiles the code for its own subtasks.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTORS, type Executor, runForOutput, runJob } from '../../test/executors.js';
import { fn, makeJob, type OperatorInput, sink, generator as source } from '../../test/jobBuilders.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pipewright-compartments-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** gen (40 records, k = i % 8) -> `op` over `partition` -> out.jsonl; its records, or the error. */
async function run(
  executor: Executor,
  op: OperatorInput,
  partition: 'rebalance' | 'hash',
): Promise<{ out?: unknown[]; error?: Error }> {
  const dir = await mkdtemp(join(root, 'job-'));
  const job = makeJob(
    'compartments',
    [source('gen', 'function generate(i) { return { i, k: i % 8 }; }', 40), op, sink('out', 'out.jsonl')],
    [
      { id: 'in', from: 'gen', to: op.id, partition, ...(partition === 'hash' ? { key: 'k' } : {}) },
      { id: 'out', from: op.id, to: 'out', partition: 'rebalance' },
    ],
  );
  return runForOutput(executor, job, dir);
}

describe.each(EXECUTORS)('top-level variables of user code (%s)', (executor) => {
  it("are one subtask's own: subtask 0 never sees what subtask 1 wrote", async () => {
    const code = `
      const seenBy = [];
      let records = 0;
      function process(r, ctx) {
        if (!seenBy.includes(ctx.subtask)) seenBy.push(ctx.subtask);
        records++;
        ctx.emit({ subtask: ctx.subtask, seenBy: [...seenBy], records });
      }`;
    const { out, error } = await run(executor, fn('op', 'process', code, 3), 'rebalance');
    expect(error).toBeUndefined();
    const records = out as { subtask: number; seenBy: number[]; records: number }[];
    expect(records).toHaveLength(40);
    for (const record of records) expect(record.seenBy).toEqual([record.subtask]);
    // Each subtask counted only its own records.
    for (const subtask of [0, 1, 2]) {
      const own = records.filter((r) => r.subtask === subtask);
      expect(Math.max(...own.map((r) => r.records))).toBe(own.length);
    }
  });

  it("are one subtask's own in a generator too", async () => {
    const dir = await mkdtemp(join(root, 'job-'));
    const code =
      'let made = 0; function generate(i, ctx) { made++; return { i, subtask: ctx.subtask, made }; }';
    const job = makeJob(
      'generator-compartments',
      [source('gen', code, 20, 2), sink('out', 'out.jsonl', 2)],
      [{ id: 'out', from: 'gen', to: 'out', partition: 'forward' }],
    );
    await runJob(executor, job, { jobDir: dir, stateDir: join(dir, 'state') });
    const text = await readFile(join(dir, 'out.jsonl'), 'utf8');
    const records = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number; subtask: number; made: number });
    // Subtask s makes i = s, s + 2, ...: its n-th record is its n-th call.
    for (const r of records) expect(r.made).toBe((r.i - r.subtask) / 2 + 1);
  });
});

describe.each(EXECUTORS)('state handles (%s)', (executor) => {
  it('are frozen: user code cannot replace their methods or add to them', async () => {
    const code = `
      function process(r, ctx) {
        const handles = [ctx.state.value('v'), ctx.state.map('m'), ctx.state.list('l'), ctx.state];
        const frozen = handles.every((h) => Object.isFrozen(h))
          && Object.isFrozen(ctx.state.value('v').get) && Object.isFrozen(ctx.state.map('m').entries.prototype);
        let assign = 'allowed';
        try { ctx.state.value('v').get = () => 'forged'; } catch (e) { assign = e.name; }
        let add = 'allowed';
        try { ctx.state.list('l').extra = 1; } catch (e) { add = e.name; }
        ctx.emit({ frozen, assign, add, sameHandle: ctx.state.value('v') === handles[0] });
      }`;
    const { out, error } = await run(executor, fn('op', 'process', code), 'hash');
    expect(error).toBeUndefined();
    expect(out).toHaveLength(40);
    for (const record of out!) {
      expect(record).toEqual({ frozen: true, assign: 'TypeError', add: 'TypeError', sameHandle: true });
    }
  });
});
