import { describe, expect, it } from 'vitest';
import type { RunCheckpointEvent } from '../../engine/protocol/protocol.js';
import { newJobDraft } from '../document/jobDraft';
import { checkpointSettingsOf, letGo, noCheckpointText } from './checkpointReport';

const checkpoint = (id: number, status: 'completed' | 'failed' = 'completed'): RunCheckpointEvent => ({
  runId: 'r',
  id,
  status,
  triggeredAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
  bytes: 0,
  fullBytes: 0,
  inFlightRecords: 0,
  subtasks: [],
});

describe('the Checkpoints panel’s words', () => {
  it('reads the job’s settings, a default for each that is absent or not valid', () => {
    expect(checkpointSettingsOf(undefined)).toEqual({ intervalMs: 1000, retained: 3 });
    const draft = { ...newJobDraft('j'), settings: { checkpointIntervalMs: 250, checkpointsRetained: 'x' } };
    expect(checkpointSettingsOf(draft)).toEqual({ intervalMs: 250, retained: 3 });
  });

  it('counts as let go every completed checkpoint but the newest kept ones; failed ones are not counted', () => {
    const list = [checkpoint(1), checkpoint(2), checkpoint(3, 'failed'), checkpoint(4), checkpoint(5)];
    expect([...letGo(list, 2)]).toEqual([2, 1]);
    expect(letGo(list, 5).size).toBe(0);
  });

  it('says why there is no checkpoint as the run stands: not yet, none taken, off, or a preview', () => {
    const settings = { intervalMs: 1000, retained: 3 };
    expect(noCheckpointText('running', settings, false)).toMatch(/^No checkpoint yet in this run/);
    for (const ended of ['finished', 'stopped', 'failed'] as const)
      expect(noCheckpointText(ended, settings, false)).toBe(
        'This run took no checkpoint: it ended before the first was due; the job takes one every 1000 ms (its checkpointIntervalMs).',
      );
    expect(noCheckpointText('finished', { ...settings, intervalMs: 0 }, false)).toMatch(
      /are off for this job/,
    );
    expect(noCheckpointText('finished', settings, true)).toMatch(/^A preview run takes no checkpoints/);
  });
});
