// The live state of a window operator, read while its run is paused: a tumbling or sliding window
// keeps its accumulators on the heap between checkpoints (operators/window/windowAccumulators.ts),
// and the state browser must show them all the same, on the run's own thread and on a worker.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { hostSessionPerTest } from '../../../test/hostSession.js';
import type { RunMetricsEvent } from '../../protocol/protocol.js';

const session = hostSessionPerTest('pipewright-window-live-');
const { result, eventsOf, until } = session;
let dir = '';
beforeEach(() => {
  dir = session.dir;
});

const KEYS = 20;

/** Record i: key k(i % 20) at time i ms, counted in windows of a day: none fires while it runs. */
function windowJob(threads: number) {
  return {
    format: 'pipewright.job/1',
    name: 'live-windows',
    // No checkpoints: only the state browser's read makes the accumulators reach the store.
    settings: { checkpointIntervalMs: 0, threads, stateBackend: 'level' },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        parallelism: 1,
        params: {
          code: `function generate(i) { return { k: "k" + (i % ${KEYS}), t: i }; }`,
          timestampField: 't',
          ratePerSec: 5000,
        },
      },
      {
        id: 'counts',
        kind: 'window',
        parallelism: 2,
        params: { type: 'tumbling', sizeMs: 86_400_000, aggregate: 'count' },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'gen', to: 'counts', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'counts', to: 'out', partition: 'rebalance' },
    ],
  };
}

const recordsIn = (m: RunMetricsEvent) => m.operators.find((o) => o.id === 'counts')!.recordsIn;

describe('a window operator paused mid-window', () => {
  for (const threads of [1, 2]) {
    it(`shows every key's count in its live state (${threads} thread${threads > 1 ? 's' : ''})`, async () => {
      const info = await result('run.start', {
        text: JSON.stringify(windowJob(threads)),
        path: join(dir, 'live-windows.job.json'),
        mode: 'run',
        previewSinks: false,
      });
      const runId = info.runId;
      await until('records in every key', () => {
        const latest = eventsOf('run.metrics', runId).at(-1);
        return latest !== undefined && recordsIn(latest) >= 4 * KEYS;
      });
      expect((await result('run.pause', { runId })).status).toBe('paused');
      const atPause = eventsOf('run.metrics', runId).length;
      await until('a sample while paused', () => eventsOf('run.metrics', runId).length >= atPause + 1);
      const counted = recordsIn(eventsOf('run.metrics', runId).at(-1)!);

      const counts = new Map<unknown, number>();
      for (const subtask of [0, 1]) {
        const page = await result('state.page', { runId, operator: 'counts', subtask, limit: 100 });
        for (const entry of page.entries) {
          expect(entry.state).toBe('windows');
          for (const [, count] of entry.value as [number, number][]) {
            counts.set(entry.key, (counts.get(entry.key) ?? 0) + count);
          }
        }
      }
      expect(counts.size).toBe(KEYS);
      expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(counted);
      expect((await result('run.stop', { runId })).status).toBe('stopped');
    });
  }
});
