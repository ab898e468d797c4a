// The example jobs in assets/examples/ run end to end through the real CLI, on the default
// (LevelDB) state backend, and produce exactly the output a plain sequential program
// written here computes from the same input: on one thread (--threads 1, the deterministic
// executor) and on two (the parallel executor), which must both give it.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  copyExample,
  describeRun,
  examplesDir,
  type JobDocument,
  type OwnerEvent,
  pathExists,
  readJob,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
} from './cliHarness.js';

const EXAMPLES = ['word-count', 'owner-has-items', 'bar-state', 'ledger', 'owner-has-items-tx'] as const;
/** Every run of an example runs at each of these --threads. */
const THREADS = [1, 2] as const;

afterAll(removeTempDirs);

/** Copies the example, optionally changes its job, runs it and returns the sink's records. */
async function runExample<T>(
  name: string,
  sinkPath: string,
  threads: number,
  change?: (job: JobDocument) => void,
): Promise<{ dir: string; records: T[] }> {
  const { dir, jobPath } = await copyExample(name);
  const job = await readJob(jobPath);
  if (change) {
    change(job);
    await writeJob(jobPath, job);
  }
  const result = await runCli(['run', jobPath, '--quiet', '--threads', String(threads)], { cwd: dir });
  expect(result.code, describeRun(result)).toBe(0);
  // State lives in .pipewright/NAME/ beside the job file.
  expect(await pathExists(path.join(dir, '.pipewright', String(job.name))), 'state directory').toBe(true);
  return { dir, records: await readJsonl<T>(path.join(dir, sinkPath)) };
}

function operator(job: JobDocument, id: string): JobDocument {
  const found = (job.operators as JobDocument[]).find((op) => op.id === id);
  if (!found) throw new Error(`no operator ${id}`);
  return found;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** Canonical text of a record with its keys sorted, for comparing multisets of records. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

function sortedCanonical(records: readonly unknown[]): string[] {
  return records.map(canonical).sort();
}

describe('the example files', () => {
  it('are exactly the examples this file tests', async () => {
    const entries = await readdir(examplesDir, { withFileTypes: true });
    const dirs = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(dirs.sort()).toEqual([...EXAMPLES].sort());
  });

  it.each(EXAMPLES)('%s is a tidy, self-contained job file', async (name) => {
    const dir = path.join(examplesDir, name);
    const job = await readJob(path.join(dir, `${name}.job.json`));
    expect(job.format).toBe('pipewright.job/1');
    expect(job.name).toBe(name);
    expect(typeof job.description).toBe('string');
    expect((job.description as string).length).toBeGreaterThan(40);

    const operators = job.operators as JobDocument[];
    const positions = job.editor?.positions as Record<string, { x: number; y: number }>;
    for (const op of operators) expect(positions[op.id], `position of ${op.id}`).toBeDefined();
    // Left to right: every edge that is not a feedback edge points to the right.
    for (const edge of job.edges as JobDocument[]) {
      if (edge.feedback) continue;
      expect(positions[edge.to]!.x, `edge ${edge.id}`).toBeGreaterThan(positions[edge.from]!.x);
    }

    for (const op of operators) {
      if (op.kind === 'sink.jsonl') expect(op.params.path).toMatch(/^out\/[\w.-]+\.jsonl$/);
      if (op.kind === 'source.jsonl') {
        const input = path.join(dir, op.params.path);
        expect((await stat(input)).size, op.params.path).toBeLessThanOrEqual(300 * 1024);
      }
    }
  });

  it.each(EXAMPLES)('`validate` accepts %s', async (name) => {
    const { dir, jobPath } = await copyExample(name);
    const result = await runCli(['validate', jobPath], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    const json = await runCli(['validate', jobPath, '--json'], { cwd: dir });
    expect(json.code, describeRun(json)).toBe(0);
    expect(json.stdout.trim()).toBe('');
  });
});

// ---------------------------------------------------------------------------------- word-count

interface WordCount {
  word: string;
  count: number;
}

describe.each(THREADS)('word-count (--threads %i)', (threads) => {
  it('emits the running count of every word, ending at the count of the input', async () => {
    const { dir, records } = await runExample<WordCount>('word-count', 'out/word-counts.jsonl', threads);

    const lines = await readJsonl<{ line: string }>(path.join(dir, 'lines.jsonl'));
    const words = lines.flatMap((l) => l.line.toLowerCase().match(/[a-z]+(?:'[a-z]+)*/g) ?? []);
    const expected = countBy(words, (w) => w);
    expect(expected.size).toBeGreaterThan(50);

    // One record per word occurrence: for a word seen n times, the counts 1..n, each once.
    expect(records).toHaveLength(words.length);
    const expectedRecords = [...expected].flatMap(([word, n]) =>
      Array.from({ length: n }, (_, i) => ({ word, count: i + 1 })),
    );
    expect(sortedCanonical(records)).toEqual(sortedCanonical(expectedRecords));

    const finalCounts = new Map<string, number>();
    for (const r of records) finalCounts.set(r.word, Math.max(finalCounts.get(r.word) ?? 0, r.count));
    expect(finalCounts).toEqual(expected);
  });
});

// ----------------------------------------------------------------------------- owner-has-items

interface OwnershipChange {
  event: 'owned' | 'released' | 'waiting';
  owner: string;
  item: string;
  seq: number;
  subtask: number;
  from?: string;
  to?: string;
}

async function ownerInput(): Promise<OwnerEvent[]> {
  return readJsonl<OwnerEvent>(path.join(examplesDir, 'owner-has-items', 'events.jsonl'));
}

/** The obvious program: one map, the events in file order. */
function simulateOwnership(events: readonly OwnerEvent[]): Map<string, string> {
  const ownerOf = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'add') {
      expect(ownerOf.has(e.item), `seq ${e.seq} adds an item twice`).toBe(false);
      ownerOf.set(e.item, e.owner);
    } else {
      expect(ownerOf.get(e.item), `seq ${e.seq} moves from the current owner`).toBe(e.from);
      expect(e.owner, `seq ${e.seq} is keyed by the old owner`).toBe(e.from);
      ownerOf.set(e.item, e.to!);
    }
  }
  return ownerOf;
}

/** The owned/released records the input calls for, one per add and two per move (without `subtask`). */
function expectedChanges(events: readonly OwnerEvent[]): unknown[] {
  return events.flatMap((e): unknown[] =>
    e.type === 'add'
      ? [{ event: 'owned', owner: e.owner, item: e.item, seq: e.seq }]
      : [
          { event: 'released', owner: e.from, item: e.item, to: e.to, seq: e.seq },
          { event: 'owned', owner: e.to, item: e.item, from: e.from, seq: e.seq },
        ],
  );
}

/** Folds the sink's change stream: an item's owner is the one of its `owned` record with the highest seq. */
function foldOwnership(changes: readonly OwnershipChange[]): Map<string, string> {
  const latest = new Map<string, OwnershipChange>();
  for (const c of changes) {
    if (c.event !== 'owned') continue;
    const seen = latest.get(c.item);
    if (!seen || c.seq > seen.seq) latest.set(c.item, c);
  }
  return new Map([...latest].map(([item, c]) => [item, c.owner]));
}

function withoutSubtask(changes: readonly OwnershipChange[]): unknown[] {
  return changes
    .filter((c) => c.event === 'owned' || c.event === 'released')
    .map(({ subtask: _subtask, ...rest }) => rest);
}

describe('owner-has-items', () => {
  it('the input exercises the interesting cases', async () => {
    const events = await ownerInput();
    const moves = events.filter((e) => e.type === 'move');
    expect(events.length).toBeGreaterThanOrEqual(300);
    const movesPerItem = countBy(moves, (m) => m.item);
    expect(Math.max(...movesPerItem.values())).toBeGreaterThanOrEqual(5);
    // An item moved back to an owner it had before.
    expect(moves.some((m, i) => moves.slice(0, i).some((p) => p.item === m.item && p.from === m.to))).toBe(
      true,
    );
    // Consecutive moves of the same item: the second one leaves the owner the first one arrives at.
    expect(moves.some((m, i) => i > 0 && moves[i - 1]!.item === m.item)).toBe(true);
    simulateOwnership(events);
  });

  it.each(THREADS)(
    'ends with the owner a sequential program computes, every move carried out exactly once (--threads %i)',
    async (threads) => {
      const events = await ownerInput();
      const { records } = await runExample<OwnershipChange>(
        'owner-has-items',
        'out/ownership.jsonl',
        threads,
      );

      expect(foldOwnership(records)).toEqual(simulateOwnership(events));

      // Exactly once: one `owned` per add, one `released` and one `owned` per move, and nothing else.
      expect(sortedCanonical(withoutSubtask(records))).toEqual(sortedCanonical(expectedChanges(events)));

      // A move waits at most once (when it overtakes its item) and only moves wait.
      const waits = records.filter((r) => r.event === 'waiting');
      const moveSeqs = new Set(events.filter((e) => e.type === 'move').map((e) => e.seq));
      for (const w of waits) expect(moveSeqs.has(w.seq), `waiting seq ${w.seq}`).toBe(true);
      expect(new Set(waits.map((w) => w.seq)).size).toBe(waits.length);

      // With 4 subtasks, items cross from one subtask to another over the feedback edge.
      const releasedOn = new Map(
        records.filter((r) => r.event === 'released').map((r) => [r.seq, r.subtask]),
      );
      const crossings = records.filter(
        (r) => r.event === 'owned' && r.from !== undefined && releasedOn.get(r.seq) !== r.subtask,
      );
      expect(crossings.length).toBeGreaterThan(0);
      expect(new Set(records.map((r) => r.subtask)).size).toBe(4);
    },
  );

  it.each(THREADS.flatMap((threads) => [1, 3].map((parallelism) => [parallelism, threads])))(
    'gives the same result with the owners operator at parallelism %i (--threads %i)',
    async (parallelism, threads) => {
      const events = await ownerInput();
      const { records } = await runExample<OwnershipChange>(
        'owner-has-items',
        'out/ownership.jsonl',
        threads,
        (job) => {
          operator(job, 'owners').parallelism = parallelism;
        },
      );
      expect(foldOwnership(records)).toEqual(simulateOwnership(events));
      expect(sortedCanonical(withoutSubtask(records))).toEqual(sortedCanonical(expectedChanges(events)));
      expect(new Set(records.map((r) => r.subtask)).size).toBe(parallelism);
    },
  );
});

// ------------------------------------------------------------------------------------ bar-state

interface BarInput {
  seq: number;
  type: 'FooAdded' | 'FooRemoved' | 'BarQueried';
  barId: string;
  fooId?: string;
}

type BarOutput =
  | {
      event: 'BarOccured';
      change: 'added' | 'removed';
      seq: number;
      fooId: string;
      barId: string;
      foos: number;
    }
  | { event: 'BazOccured'; reason: string; seq: number; fooId: string; barId: string; foos: number }
  | { event: 'BarListed'; seq: number; barId: string; foos: number; fooIds: string[] };

/** The obvious program: a Map of Sets, the events in file order, one output per event. */
function simulateBars(events: readonly BarInput[]): { outputs: BarOutput[]; final: Map<string, string[]> } {
  const bars = new Map<string, Set<string>>();
  const outputs: BarOutput[] = [];
  for (const e of events) {
    const foos = bars.get(e.barId) ?? new Set<string>();
    bars.set(e.barId, foos);
    const { seq, barId } = e;
    if (e.type === 'BarQueried') {
      outputs.push({ event: 'BarListed', seq, barId, foos: foos.size, fooIds: [...foos].sort() });
      continue;
    }
    const fooId = e.fooId!;
    if (e.type === 'FooAdded' && foos.has(fooId)) {
      outputs.push({ event: 'BazOccured', reason: 'already-added', seq, fooId, barId, foos: foos.size });
    } else if (e.type === 'FooRemoved' && !foos.has(fooId)) {
      outputs.push({ event: 'BazOccured', reason: 'not-present', seq, fooId, barId, foos: foos.size });
    } else if (e.type === 'FooAdded') {
      foos.add(fooId);
      outputs.push({ event: 'BarOccured', change: 'added', seq, fooId, barId, foos: foos.size });
    } else {
      foos.delete(fooId);
      outputs.push({ event: 'BarOccured', change: 'removed', seq, fooId, barId, foos: foos.size });
    }
  }
  return { outputs, final: new Map([...bars].map(([bar, foos]) => [bar, [...foos].sort()])) };
}

describe.each(THREADS)('bar-state (--threads %i)', (threads) => {
  it('emits exactly what a sequential program emits, and ends with the same foos per bar', async () => {
    const events = await readJsonl<BarInput>(path.join(examplesDir, 'bar-state', 'bar-events.jsonl'));
    const { outputs, final } = simulateBars(events);
    // The input has both kinds of BazOccured and a listing in the middle and at the end.
    expect(
      outputs.filter((o) => o.event === 'BazOccured' && o.reason === 'not-present').length,
    ).toBeGreaterThan(0);
    expect(
      outputs.filter((o) => o.event === 'BazOccured' && o.reason === 'already-added').length,
    ).toBeGreaterThan(0);
    expect(outputs.filter((o) => o.event === 'BarListed').length).toBe(2 * final.size);

    const { records } = await runExample<BarOutput>('bar-state', 'out/bar-events-out.jsonl', threads);
    const bySeq = [...records].sort((a, b) => a.seq - b.seq);
    expect(bySeq).toEqual(outputs);

    // Folding the stream of changes gives the final foos of every bar.
    const folded = new Map<string, Set<string>>();
    for (const r of bySeq) {
      const foos = folded.get(r.barId) ?? new Set<string>();
      folded.set(r.barId, foos);
      if (r.event !== 'BarOccured') continue;
      if (r.change === 'added') foos.add(r.fooId);
      else foos.delete(r.fooId);
    }
    expect(new Map([...folded].map(([bar, foos]) => [bar, [...foos].sort()]))).toEqual(final);
  });
});
