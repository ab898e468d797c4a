// What the run tests hand the designer as the host would: a run's status, a step's view and a
// checkpoint, each with plain values unless a test says otherwise.
import type { RunCheckpointEvent, RunInfo, StepView } from '../../engine/protocol/protocol.js';

export const runInfo = (status: RunInfo['status'], mode: RunInfo['mode'] = 'debug'): RunInfo => ({
  runId: 'r1',
  status,
  mode,
  step: 0,
  stateDir: '/s',
  checkpointDir: '/c',
});

export const stepView = (seq: number, extra: Partial<StepView> = {}): StepView => ({
  seq,
  operator: 'owners',
  subtask: seq % 4,
  kind: 'record',
  record: { seq },
  emitted: [],
  state: [],
  ...extra,
});

export const checkpointEvent = (
  id: number,
  status: RunCheckpointEvent['status'] = 'completed',
  extra: Partial<RunCheckpointEvent> = {},
): RunCheckpointEvent => ({
  runId: 'r1',
  id,
  status,
  triggeredAt: '2026-01-01T00:00:00Z',
  durationMs: 5,
  bytes: 10,
  fullBytes: 20,
  inFlightRecords: 0,
  subtasks: [],
  ...extra,
});
