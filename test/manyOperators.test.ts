// Jobs of many operators. A chain of 100,000 map operators printed nothing for minutes: parts of
// the engine did work quadratic in the job's size (placing subtasks on threads, every metrics
// sample, choosing the next subtask to run, each checkpoint, a restore). Each is held here to
// linear work at a size where quadratic work takes seconds, by the CPU time this process spends
// (docs/testing.md, "Time"), or by counting what the executor looks at. A big job shows how far
// its opening has come; one above the documented limit is refused at once (docs/job-file.md).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CheckpointCoordinator } from '../engine/checkpoint/checkpointCoordinator.js';
import type { SubtaskSnapshot } from '../engine/checkpoint/checkpointMetadata.js';
import { CheckpointStorage } from '../engine/checkpoint/checkpointStorage.js';
import { restoredSplits } from '../engine/checkpoint/restore.js';
import { JobRun } from '../engine/deploy/jobRun.js';
import { jobMetrics } from '../engine/deploy/runMetrics.js';
import { countText } from '../engine/graph/countText.js';
import { planJob } from '../engine/graph/plan.js';
import type { Job } from '../engine/graph/schema.js';
import { placeSubtasks } from '../engine/graph/threadPlacement.js';
import { Subtask } from '../engine/runtime/subtask.js';
import { binPath, describeRun, makeTempDir, removeTempDirs, runCli } from './cliHarness.js';
import { fn, generator, makeJob, sink } from './jobBuilders.js';
import { TerminalRun } from './terminalRun.js';

afterAll(removeTempDirs);

/** A source, `maps` map operators one after the other on forward edges, and a sink. */
function chainDocument(name: string, maps: number, records = 10) {
  const operators = [
    generator('src', 'function generate(i, ctx) {\n  return { i };\n}', records),
    ...Array.from({ length: maps }, (_, i) => fn(`m${i}`, 'map', 'function map(r) {\n  return r;\n}')),
    sink('out', 'out.jsonl'),
  ];
  const edges = operators.slice(1).map((op, i) => ({
    id: `e${i}`,
    from: operators[i]!.id,
    to: op.id,
    partition: 'forward',
  }));
  return { name, operators, edges };
}

function chain(maps: number, records = 10): Job {
  const { name, operators, edges } = chainDocument('chain', maps, records);
  return makeJob(name, operators, edges);
}

/** The CPU time (ms, all of this process's threads) `work` takes. */
async function cpuMsOf(work: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

// Quadratic work at this size takes seconds (placing: ~7 s, a metrics sample: ~2 s, a checkpoint's
// records and a restore's splits: ~2 s each); linear work takes tens of milliseconds.
const BIG = 19_000;

describe(`a chain of ${countText(BIG)} operators`, () => {
  const job = chain(BIG);
  const plan = planJob(job);

  it('is placed on threads in linear work', async () => {
    const cpuMs = await cpuMsOf(() => placeSubtasks(plan, 2));
    expect(cpuMs).toBeLessThan(1000);
  });

  it('gives a metrics sample in linear work', async () => {
    const rows = plan.operators.map((op) => ({
      operatorId: op.id,
      subtask: 0,
      recordsIn: 0,
      recordsOut: 0,
      queued: 0,
    }));
    let operators = 0;
    const cpuMs = await cpuMsOf(() => {
      operators = jobMetrics(job.name, plan, 0, rows).operators.length;
    });
    expect(operators).toBe(BIG + 2);
    expect(cpuMs).toBeLessThan(500);
  });

  it('completes a checkpoint, and finds what to restore of each operator, in linear work', async () => {
    const dir = await makeTempDir('pipewright-many-');
    const storage = new CheckpointStorage(dir);
    const subtasks = plan.operators.map((op) => ({ operator: op.id, subtask: 0 }));
    const coordinator = new CheckpointCoordinator(
      storage,
      job,
      plan,
      {
        count: subtasks.length,
        allFinished: () => false,
        trigger: () => {},
        complete: () => {},
      },
      [],
      1,
    );
    coordinator.requestNow();
    expect(coordinator.poll()).toBe(true);
    const checkpointMs = await cpuMsOf(async () => {
      subtasks.forEach((snapshot: SubtaskSnapshot, ordinal) => {
        const ack = {
          snapshot:
            ordinal === 0
              ? { ...snapshot, splits: [{ kind: 'source.generator', payload: { next: 10 } }] }
              : snapshot,
          persistedBytes: 0,
          fullBytes: 0,
          syncMs: 0,
          asyncMs: 0,
          alignmentMs: 0,
          inFlightRecords: 0,
        };
        coordinator.acknowledge(ordinal, 1, Promise.resolve(ack));
      });
      await coordinator.settled();
    });
    expect(coordinator.completed).toEqual([1]);
    expect(checkpointMs).toBeLessThan(1000);

    const metadata = await storage.readMetadata(1);
    expect(metadata.operators.filter((o) => o.stateful).map((o) => o.id)).toEqual(['src']);
    let restored: unknown[] = [];
    const restoreMs = await cpuMsOf(() => {
      restored = plan.operators.map((op) => restoredSplits(metadata, op.id));
    });
    expect(restored[0]).toEqual([{ kind: 'source.generator', payload: { next: 10 } }]);
    expect(restored.slice(1).every((splits) => splits === undefined)).toBe(true);
    expect(restoreMs).toBeLessThan(500);
  });
});

describe('the deterministic executor', () => {
  it('looks at a bounded number of subtasks per slice, however long the chain', async () => {
    const maps = 2000;
    const dir = await makeTempDir('pipewright-many-');
    const run = await JobRun.open(chain(maps, 2000), { jobDir: dir, stateDir: path.join(dir, 'state') });
    const spy = vi.spyOn(Subtask.prototype, 'runnable');
    let looks: number;
    try {
      const summary = await run.run();
      expect(summary.metrics.operators.at(-1)!.recordsIn).toBe(2000);
    } finally {
      looks = spy.mock.calls.length;
      spy.mockRestore();
    }
    // 2,000 records are 8 slices of the source, each taken down the chain one slice per subtask,
    // and the ends of stream once more: some 20,000 slices. Looking through the chain before
    // each slice was 2,000 looks a slice (~20,000,000).
    expect(looks).toBeLessThan(200_000);
  });
});

/** `document` as job.json, in a folder of its own. */
async function jobFolder(document: object, settings: object = {}): Promise<string> {
  const dir = await makeTempDir('pipewright-many-');
  const job = { format: 'pipewright.job/1', settings: { checkpointIntervalMs: 0, ...settings }, ...document };
  await writeFile(path.join(dir, 'job.json'), JSON.stringify(job));
  return dir;
}

describe('pipewright run of a job of 2,500 operators', () => {
  it('says how far its opening has come, a line a tenth, then runs it', async () => {
    const dir = await jobFolder(chainDocument('chain', 2500));
    const result = await runCli(['run', 'job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    expect(result.stderr.split('\n').filter((l) => l.includes('opening'))).toEqual([
      'pipewright: opening job "chain": 1,000 of 2,502 subtasks',
      'pipewright: opening job "chain": 2,000 of 2,502 subtasks',
    ]);
    expect(result.stdout).toMatch(/^done: job "chain", 10 records from the sources/);
  });

  it('on a terminal, redraws the opening in place, then a table cut to the screen', async () => {
    const dir = await jobFolder(chainDocument('chain', 2500));
    const run = new TerminalRun(`${process.execPath} ${binPath} run job.json`, { cwd: dir });
    const { status } = await run.exited;
    expect(status, run.describe()).toBe(0);
    expect(run.output).toContain('opening job "chain": 2,000 of 2,502 subtasks');
    const screen = run.screen().filter((l) => l !== '');
    // The table drew over the opening's line; the terminal has 40 rows, one kept for the cursor.
    expect(
      screen.some((l) => l.includes('opening')),
      run.describe(),
    ).toBe(false);
    const table = screen.slice(
      0,
      screen.findIndex((l) => l.startsWith('done:')),
    );
    expect(table[0], run.describe()).toMatch(/^job "chain"/);
    expect(table).toHaveLength(39);
    expect(table.at(-1)).toBe('... and 2,466 more operators');
  });

  it('a job of more subtasks than a job may have is refused before it opens, in one line', async () => {
    const { operators, edges } = chainDocument('wide', 1);
    const dir = await jobFolder(
      {
        name: 'wide',
        operators: operators.map((op) => (op.id === 'm0' ? { ...op, parallelism: 20_000 } : op)),
        edges: edges.map((e) => ({ ...e, partition: 'rebalance' })),
      },
      { maxParallelism: 32768 },
    );
    const validated = await runCli(['validate', 'job.json'], { cwd: dir });
    expect(validated.code, describeRun(validated)).toBe(1);
    expect(validated.stderr).toBe(
      "pipewright: job.json: the job has 20,002 subtasks (its operators' parallelism added up); a job may have 20,000 at most: each subtask holds its own compiled code and buffers, all in one process's memory ($.operators)\n",
    );
    const ran = await runCli(['run', 'job.json'], { cwd: dir });
    expect(ran.code, describeRun(ran)).toBe(1);
    expect(ran.stderr).toContain('the job has 20,002 subtasks');
  });
});
