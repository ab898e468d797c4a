// Run ▸ Run on Flink… as the designer drives it (issue 28): run.start with a cluster sends the job
// to the Flink session cluster `npm run services` starts, and the run's events carry Flink's
// figures into the same panels as a local run: status, per operator and subtask records and where
// the time went, backpressure per edge, checkpoints with each subtask's bytes; the sinks' output
// is the local engine's; Stop is a stop with a savepoint, which a later Run on Flink… goes on
// from; Pause is refused, saying why.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import type { ParamsOf } from '../../engine/protocol/protocol.js';
import { writeCountingJob } from '../flinkCountingJob.js';
import { byKey, FLINK_TIMEOUT } from '../flinkHarness.js';
import { hostSessionPerTest } from '../hostSession.js';
import { describeWithServer, FLINK_URL } from './servers.js';

const session = hostSessionPerTest('pipewright-flink-designer-');
const { result, failure, eventsOf, until, ended } = session;
let dir = '';
beforeEach(() => {
  dir = session.dir;
});

/** The counting job's run.start params, trusted as the designer sends a job it made. */
function countingJob(folder: string, count: number): ParamsOf<'run.start'> {
  const { path, text } = writeCountingJob(folder, count);
  return { text, path, mode: 'run', previewSinks: false, trusted: true };
}

/**
 * Enough for Flink's per-second task metrics to be read while the job runs, on an idle machine
 * too (at 200,000 the runner finished in under 3 s, before any was).
 */
const LIVE = 600_000;
/** Enough for a stop to come while the job runs, on an idle machine too. */
const RECORDS = 3_000_000;

const lines = async (path: string) =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

await describeWithServer('flink', 'Run on Flink… in the designer', () => {
  it(
    'runs the job on the cluster with live metrics and checkpoints, and writes the local output',
    async () => {
      const params = countingJob(dir, LIVE);
      const info = await result('run.start', { ...params, flink: { cluster: FLINK_URL } });
      expect(info.status).toBe('starting');
      expect(info.flink).toEqual({ cluster: FLINK_URL });
      const runId = info.runId;
      // A shared cluster on a loaded machine may take longer than the session's 20 s default.
      const last = await ended(runId, FLINK_TIMEOUT);
      expect(last.status, last.message).toBe('finished');
      expect(last.message).toBe(`done on Flink at ${FLINK_URL}`);
      const statuses = eventsOf('run.status', runId);
      const running = statuses.find((s) => s.status === 'running')!;
      expect(running.message).toMatch(/^job [0-9a-f]{32} at http:\S+ \(Flink 2\.\d+\.\d+\)$/);
      expect(running.flink?.jobId).toMatch(/^[0-9a-f]{32}$/);

      const metrics = eventsOf('run.metrics', runId);
      expect(metrics.length).toBeGreaterThan(1);
      const final = metrics.at(-1)!;
      const op = (id: string) => final.operators.find((o) => o.id === id)!;
      expect(final.operators.map((o) => o.id).sort()).toEqual(['count', 'in', 'out']);
      expect(op('in').recordsOut).toBe(LIVE);
      expect(op('count').recordsIn).toBe(LIVE);
      expect(op('out').recordsIn).toBe(LIVE);
      expect(op('count').subtasks.map((s) => s.keyGroups)).toEqual([
        [0, 63],
        [64, 127],
      ]);
      expect(op('count').subtasks.every((s) => s.recordsIn > 0)).toBe(true);
      // Where the time went, as Flink measures it per task: a second in all, give or take rounding.
      const busy = metrics.flatMap((m) => m.operators.find((o) => o.id === 'count')!.subtasks);
      const measured = busy.filter((s) => s.busyTimeMsPerSecond !== undefined);
      expect(measured.length).toBeGreaterThan(0);
      for (const s of measured) {
        const sum =
          s.busyTimeMsPerSecond! + (s.backPressuredTimeMsPerSecond ?? 0) + (s.idleTimeMsPerSecond ?? 0);
        expect(Math.abs(sum - 1000)).toBeLessThanOrEqual(50);
      }
      expect(final.edges.map((e) => [e.id, e.from])).toEqual([
        ['e1', 'in'],
        ['e2', 'count'],
      ]);

      const checkpoints = eventsOf('run.checkpoint', runId);
      expect(checkpoints.length).toBeGreaterThan(0);
      const completed = checkpoints.filter((c) => c.status === 'completed');
      expect(completed.length).toBeGreaterThan(0);
      // Each once, in the order they were taken.
      const ids = checkpoints.map((c) => c.id);
      expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
      const counted = completed.at(-1)!.subtasks.filter((s) => s.operator === 'count');
      expect(counted.map((s) => s.subtask)).toEqual([0, 1]);
      expect(counted.every((s) => s.bytes > 0)).toBe(true);

      // Its state and checkpoints are the cluster's: none of the job's local ones stand for them.
      expect(await result('state.checkpoints', { runId })).toEqual({ ids: [], retained: 3 });
      expect(await failure('state.page', { runId, operator: 'count', subtask: 0, limit: 10 })).toBe(
        `state.page: run ${runId} is on Flink: its state and checkpoints are the cluster's, which the state browser cannot read`,
      );

      // The same records as the local engine writes, each key's in order.
      const local = join(dir, 'local');
      await mkdir(local);
      const here = countingJob(local, LIVE);
      const { trusted: _trusted, ...localParams } = here;
      const localRun = await result('run.start', localParams);
      expect((await ended(localRun.runId, FLINK_TIMEOUT)).status).toBe('finished');
      const expected = await lines(join(local, 'out.jsonl'));
      const actual = await lines(join(dir, 'out.jsonl'));
      expect(actual).toHaveLength(LIVE);
      expect(byKey(actual, 'k')).toEqual(byKey(expected, 'k'));
    },
    FLINK_TIMEOUT,
  );

  it(
    "refuses Pause, stops with a savepoint, and goes on from it to one clean run's output",
    async () => {
      const params = countingJob(dir, RECORDS);
      const { runId } = await result('run.start', { ...params, flink: { cluster: FLINK_URL } });
      await until(
        'records counted on Flink',
        () =>
          eventsOf('run.metrics', runId).some(
            (m) => (m.operators.find((o) => o.id === 'count')?.recordsIn ?? 0) > 0,
          ),
        FLINK_TIMEOUT,
      );
      expect(await failure('run.pause', { runId })).toMatch(/^cannot pause run .*: Flink has no pause/);
      const stopped = await result('run.stop', { runId });
      expect(stopped.status, stopped.message).toBe('stopped');
      expect(stopped.message).toMatch(/^stopped with a savepoint at \S+savepoint-\S+$/);
      const savepoint = stopped.flink?.savepoint;
      expect(stopped.message).toBe(`stopped with a savepoint at ${savepoint}`);
      // What the savepoint covers was committed, and is less than the whole input. (Once in
      // four runs on a loaded machine it was nothing at all, though records had been counted:
      // not understood yet, so not asserted; what follows holds either way.)
      const written = await lines(join(dir, 'out.jsonl'));
      expect(written.length).toBeLessThan(RECORDS);

      // Run on Flink… again, from that savepoint: the job goes on where it stopped.
      const again = await result('run.start', {
        ...params,
        flink: { cluster: FLINK_URL, ...(savepoint === undefined ? {} : { fromSavepoint: savepoint }) },
      });
      // Most of the input is left for it: longer than a run's usual 20 s on a busy machine.
      const last = await ended(again.runId, FLINK_TIMEOUT);
      expect(last.status, last.message).toBe('finished');
      const all = await lines(join(dir, 'out.jsonl'));
      expect(all).toHaveLength(RECORDS);
      // Each key counted 1, 2, 3, … once each: nothing lost at the stop, nothing twice.
      for (const [key, records] of byKey(all, 'k')) {
        expect(
          records.every((r, i) => (JSON.parse(r) as { n: number }).n === i + 1),
          `key ${key}`,
        ).toBe(true);
      }
    },
    FLINK_TIMEOUT,
  );
});
