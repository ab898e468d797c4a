// Soak: a job with a loop (owner-has-items, its feedback edge round `owners`) on a real Flink
// cluster, where the loop's in-JVM queue, its log in the head's raw keyed state and the
// co-location of head and tail meet TaskManager JVMs that can die (docs/flink-loops-design.md §4,
// issue 29 part 1). A TaskManager killed with -9 mid-run and started again, on a cluster of the
// test's own (privateServers.ts), and a stop with a savepoint at Ctrl-C then --from-savepoint, on
// the shared cluster, each give one clean run's output: `pipewright run`'s lines less the
// "waiting" ones (those depend on how input and feedback interleave), as sorted lists, so none is
// missing and none doubled; the same final owners; waits only of moves, at most once each
// (flinkLoops.test.ts's rules). While the parallelism-4 job runs, the REST API shows loop head
// subtask i and loop tail subtask i on one TaskManager, the heads spread over both. A savepoint
// taken at parallelism 4 and resumed at 2 gives the same lines less their subtask (the loop log
// replayed by key group to the new owners).
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRun, makeTempDir, removeTempDirs, runCli, writeJob } from '../cliHarness.js';
import { FLINK_TIMEOUT, ON_FLINK } from '../flinkHarness.js';
import { expectWaitsOfMoves, foldOwnership, isWaiting, ownersJob, writeOwnerEvents } from '../ownerEvents.js';
import {
  background,
  interruptWithSavepoint,
  rest,
  runningOrEnded,
  runThroughTaskManagerKill,
} from './flinkClusterWatch.js';
import { type PrivateFlink, startPrivateFlink } from './privateServers.js';
import { describeWithServer, FLINK_URL } from './servers.js';

/** Several seconds of the loop's work on the cluster here, at parallelism 4 and at 2. */
const EVENTS = 30_000;
/** Often enough that checkpoints cut the loop while transfers circulate, and that one completes early. */
const CHECKPOINT_MS = 500;
const OUTPUT = 'out/ownership.jsonl';

let cluster: PrivateFlink | undefined;
afterAll(async () => {
  await cluster?.close();
  await removeTempDirs();
});

let events: string;
let owners: Map<string, string>;
let moves: Set<number>;
beforeAll(async () => {
  events = path.join(await makeTempDir('pipewright-loop-events-'), 'events.jsonl');
  ({ owners, moves } = writeOwnerEvents(events, EVENTS));
});

/** The example's job on the bigger input, `owners` at `parallelism`, named `name`. */
async function loopJob(name: string, parallelism: number): Promise<{ dir: string; jobPath: string }> {
  const dir = await makeTempDir('pipewright-flink-loop-');
  // In the job's folder: a job reading outside its own is refused unless trusted.
  await copyFile(events, path.join(dir, 'events.jsonl'));
  const job = await ownersJob('events.jsonl', CHECKPOINT_MS, 1);
  // `threads` is the local engine's; Flink places subtasks in its slots.
  delete job.settings.threads;
  job.name = name;
  const head = (job.operators as { id: string; parallelism: number }[]).find((op) => op.id === 'owners')!;
  head.parallelism = parallelism;
  const jobPath = path.join(dir, `${name}.job.json`);
  await writeJob(jobPath, job);
  return { dir, jobPath };
}

/** Sets `owners`' parallelism in the job file at `jobPath`. */
async function loopJobAt(jobPath: string, parallelism: number): Promise<void> {
  const job = JSON.parse(await readFile(jobPath, 'utf8')) as {
    operators: { id: string; parallelism: number }[];
  };
  job.operators.find((op) => op.id === 'owners')!.parallelism = parallelism;
  await writeJob(jobPath, job);
}

async function sortedLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/** `pipewright run`'s lines less the "waiting" ones, sorted, per parallelism (lines name their subtask). */
const localLines = new Map<number, Promise<string[]>>();
function localEffects(parallelism: number): Promise<string[]> {
  if (!localLines.has(parallelism)) {
    localLines.set(
      parallelism,
      (async () => {
        const { dir, jobPath } = await loopJob(`owners-local-${parallelism}`, parallelism);
        const local = await runCli(['run', jobPath, '--quiet', '--threads', '1']);
        expect(local.code, describeRun(local)).toBe(0);
        const lines = await sortedLines(path.join(dir, OUTPUT));
        expect(foldOwnership(lines)).toEqual(owners);
        return lines.filter((line) => !isWaiting(line));
      })(),
    );
  }
  return localLines.get(parallelism)!;
}

/** A line without its `subtask`: what a run rescaled mid-way can be compared by. */
function withoutSubtask(line: string): string {
  const { subtask: _, ...others } = JSON.parse(line) as Record<string, unknown>;
  return JSON.stringify(others);
}

/**
 * One clean run's output in `dir`: the local effects at `parallelism` exactly, the final owners,
 * the waits of moves. `rescaled`: the run changed parallelism on the way, so lines are compared
 * without the subtask that wrote them.
 */
async function expectOneCleanRun(
  dir: string,
  parallelism: number,
  context: string,
  rescaled = false,
): Promise<void> {
  const lines = await sortedLines(path.join(dir, OUTPUT));
  const comparable = (all: readonly string[]) => (rescaled ? all.map(withoutSubtask).sort() : [...all]);
  const effects = comparable(lines.filter((line) => !isWaiting(line)));
  const expected = comparable(await localEffects(parallelism));
  // Sorted lists, not sets: a line written twice after a restore shows as one too many.
  expect(
    effects.length,
    `${context}\n${effects.length} lines where the local run has ${expected.length}`,
  ).toBe(expected.length);
  expect(effects, context).toEqual(expected);
  expect(foldOwnership(lines)).toEqual(owners);
  expectWaitsOfMoves(lines, moves, context);
}

/**
 * Runs the job on the cluster at `base`, stops it with Ctrl-C once a checkpoint completed (while
 * items circulate), and checks what the savepoint covers: some of the clean run's lines (`clean`,
 * at the job's parallelism), none twice, not all (or the stop came after the loop emptied).
 * Returns the savepoint's path.
 */
async function stopWithSavepoint(
  base: string,
  jobPath: string,
  name: string,
  dir: string,
  clean: Promise<string[]>,
) {
  const run = background(['flink', jobPath, '--cluster', base]);
  await runningOrEnded(run, base, name);
  const savepoint = await interruptWithSavepoint(run, name);
  const atStop = (await sortedLines(path.join(dir, OUTPUT))).filter((line) => !isWaiting(line));
  const all = new Set(await clean);
  for (const line of atStop) expect(all.has(line), `not a line of the clean run: ${line}`).toBe(true);
  expect(new Set(atStop).size, 'a line written twice before the stop').toBe(atStop.length);
  expect(atStop.length).toBeGreaterThan(0);
  expect(atStop.length).toBeLessThan(all.size);
  return savepoint;
}

interface Subtask {
  subtask: number;
  status: string;
  'taskmanager-id': string;
}

/** Each subtask's TaskManager, by subtask index, of the job's vertex whose name `named` picks. */
async function taskManagersOf(
  base: string,
  jobId: string,
  named: (name: string) => boolean,
): Promise<string[]> {
  const job = await rest<{ vertices: { id: string; name: string }[] }>(base, `/jobs/${jobId}`);
  const matching = job.vertices.filter((v) => named(v.name));
  expect(
    matching.map((v) => v.name),
    job.vertices.map((v) => v.name).join(' | '),
  ).toHaveLength(1);
  const vertex = await rest<{ subtasks: Subtask[] }>(base, `/jobs/${jobId}/vertices/${matching[0]!.id}`);
  for (const s of vertex.subtasks)
    expect(s.status, `${matching[0]!.name} subtask ${s.subtask}`).toBe('RUNNING');
  return [...vertex.subtasks].sort((a, b) => a.subtask - b.subtask).map((s) => s['taskmanager-id']);
}

/**
 * Loop head subtask i (LoopHead with `owners` chained after it, "owners: loop"), loop tail
 * subtask i ("owners: loop tail") and control subtask i ("owners: loop control", whose reader
 * takes head i's reports in memory) run on one TaskManager, and the heads on both of them.
 */
async function expectCoLocated(base: string, jobId: string): Promise<void> {
  const heads = await taskManagersOf(
    base,
    jobId,
    (n) => n.startsWith('owners: loop') && !/tail|control/.test(n),
  );
  const tails = await taskManagersOf(base, jobId, (n) => n.startsWith('owners: loop tail'));
  expect(heads).toHaveLength(4);
  expect(tails).toEqual(heads);
  expect(await taskManagersOf(base, jobId, (n) => n === 'Source: owners: loop control')).toEqual(heads);
  expect(new Set(heads).size, `heads on ${heads.join(', ')}`).toBe(2);
}

await describeWithServer('flink', 'a job with a loop on a Flink cluster', () => {
  it(
    'gives one clean run through a TaskManager killed with -9, head and tail co-located subtask by subtask',
    async () => {
      const expected = localEffects(4);
      // Awaited below; until then a failure of the local run must not be an unhandled rejection.
      expected.catch(() => {});
      cluster = await startPrivateFlink();
      const name = `loop-tm-kill-${process.pid}`;
      // At parallelism 4 the job takes all 4 slots: loop heads and tails on the TaskManager killed.
      const job = await loopJob(name, 4);
      const started = Date.now();
      const { code, stdout, stderr, jobId } = await runThroughTaskManagerKill(
        cluster,
        job.jobPath,
        name,
        (id) => expectCoLocated(cluster!.url, id),
      );
      console.log(
        `loop through a TaskManager kill: ${((Date.now() - started) / 1000).toFixed(1)} s on the cluster`,
      );
      expect(code, `${stdout}\n${stderr}`).toBe(0);
      await expected;
      await expectOneCleanRun(job.dir, 4, `${stdout}\n${stderr}`);
      // The loss was the job's to recover from, not a kill after its end.
      const { exceptionHistory } = await rest<{ exceptionHistory: { entries: unknown[] } }>(
        cluster.url,
        `/jobs/${jobId}/exceptions`,
      );
      expect(exceptionHistory.entries.length).toBeGreaterThan(0);
      // ... and it went on from a checkpoint (whose loop log the heads replayed), not from the start.
      const { counts } = await rest<{ counts: { restored: number } }>(
        cluster.url,
        `/jobs/${jobId}/checkpoints`,
      );
      expect(counts.restored).toBeGreaterThan(0);
    },
    FLINK_TIMEOUT,
  );

  it(
    'stops with a savepoint at Ctrl-C while items circulate and goes on from it to one clean run',
    async () => {
      // Parallelism 2: the shared cluster's other jobs may hold two of its four slots.
      const expected = localEffects(2);
      expected.catch(() => {});
      const name = `loop-stop-${process.pid}`;
      const job = await loopJob(name, 2);
      const started = Date.now();
      const savepoint = await stopWithSavepoint(FLINK_URL, job.jobPath, name, job.dir, expected);
      const resumed = await runCli(
        ['flink', job.jobPath, '--cluster', FLINK_URL, '--from-savepoint', savepoint, '--quiet'],
        ON_FLINK,
      );
      console.log(
        `loop stopped with a savepoint and resumed: ${((Date.now() - started) / 1000).toFixed(1)} s on the cluster`,
      );
      expect(resumed.code, describeRun(resumed)).toBe(0);
      await expectOneCleanRun(job.dir, 2, describeRun(resumed));
    },
    FLINK_TIMEOUT,
  );

  it(
    'stopped with a savepoint at parallelism 4, goes on from it at 2: the loop log replayed to the new owners',
    async () => {
      const expected = localEffects(4);
      expected.catch(() => {});
      // The test's own cluster: all 4 slots for the first run, whatever the shared one runs.
      cluster ??= await startPrivateFlink();
      const name = `loop-rescale-${process.pid}`;
      const job = await loopJob(name, 4);
      const started = Date.now();
      const savepoint = await stopWithSavepoint(cluster.url, job.jobPath, name, job.dir, expected);
      await loopJobAt(job.jobPath, 2);
      const resumed = await runCli(
        ['flink', job.jobPath, '--cluster', cluster.url, '--from-savepoint', savepoint, '--quiet'],
        ON_FLINK,
      );
      console.log(
        `loop stopped at 4 and resumed at 2: ${((Date.now() - started) / 1000).toFixed(1)} s on the cluster`,
      );
      expect(resumed.code, describeRun(resumed)).toBe(0);
      await expectOneCleanRun(job.dir, 4, describeRun(resumed), true);
    },
    FLINK_TIMEOUT,
  );
});
