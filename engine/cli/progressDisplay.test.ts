// The table `pipewright run` draws on a terminal, from the metrics of a run as they stand.
import { describe, expect, it } from 'vitest';
import type { JobMetrics, SubtaskMetrics } from '../metrics/jobMetrics.js';
import { formatTable } from './progressDisplay.js';

function subtask(index: number, busy?: number, held?: number): SubtaskMetrics {
  return {
    subtask: index,
    recordsIn: 100,
    recordsOut: 100,
    queued: 0,
    ...(busy === undefined || held === undefined
      ? {}
      : {
          busyTimeMsPerSecond: busy,
          backPressuredTimeMsPerSecond: held,
          idleTimeMsPerSecond: 1000 - busy - held,
        }),
  };
}

function metrics(subtasks: Record<string, SubtaskMetrics[]>): JobMetrics {
  return {
    job: 'pressure',
    elapsedMs: 2000,
    operators: Object.entries(subtasks).map(([id, s]) => ({
      id,
      kind: 'map',
      parallelism: s.length,
      recordsIn: 100 * s.length,
      recordsOut: 100 * s.length,
      subtasks: s,
    })),
  };
}

describe('the progress table', () => {
  it('shows per operator how busy its busiest subtask is and how held back its most held-back one', () => {
    const lines = formatTable(
      metrics({
        gen: [subtask(0, 4, 990)],
        slow: [subtask(0, 997, 0), subtask(1, 620, 5)],
        out: [subtask(0, 3, 0)],
      }),
      undefined,
    );
    expect(lines.slice(1).map((l) => l.trimEnd())).toEqual([
      'operator  kind   in  out  in/s  busy  backpressured  state',
      'gen ×1    map   100  100    50    0%            99%',
      'slow ×2   map   200  200   100  100%             1%',
      'out ×1    map   100  100    50    0%             0%',
    ]);
  });

  it('leaves them blank while nothing is measured (a run that has only begun)', () => {
    const lines = formatTable(metrics({ gen: [subtask(0)] }), undefined);
    expect(lines[1]).toMatch(/in\/s {2}busy {2}backpressured {2}state$/);
    expect(lines[2]!.trimEnd()).toBe('gen ×1    map   100  100    50');
    // The columns are there, blank: every row as wide as the header.
    expect(lines[2]).toHaveLength(lines[1]!.length);
  });
});
