import { describe, expect, it } from 'vitest';
import type { RunMetricsEvent, SubtaskLive } from '../../engine/protocol/protocol.js';
import { stateRows, stateTotals } from './stateSizes';

const sub = (subtask: number, stateBytes?: number, keys?: number): SubtaskLive => ({
  subtask,
  recordsIn: 0,
  recordsOut: 0,
  queued: 0,
  keyGroups: [subtask * 32, subtask * 32 + 31],
  ...(stateBytes === undefined ? {} : { stateBytes, stateKeys: keys, stateEntries: keys }),
});

const metrics: RunMetricsEvent = {
  runId: 'r',
  elapsedMs: 1000,
  operators: [
    { id: 'events', recordsIn: 0, recordsOut: 10, subtasks: [sub(0)] },
    {
      id: 'owners',
      recordsIn: 10,
      recordsOut: 10,
      subtasks: [sub(1, 100, 1), sub(0, 100, 1), sub(2, 900, 9), sub(3, 100, 1)],
    },
  ],
  edges: [],
};

describe('stateRows', () => {
  it('lists keyed operators with each subtask’s size, keys, key groups and bar', () => {
    const { keyed, stateless } = stateRows(metrics);
    expect(stateless).toEqual(['events']);
    expect(keyed).toHaveLength(1);
    const owners = keyed[0]!;
    expect(owners.totalBytes).toBe(1200);
    expect(owners.subtasks.map((s) => s.subtask)).toEqual([0, 1, 2, 3]);
    expect(owners.subtasks[2]).toMatchObject({
      bytes: 900,
      keys: 9,
      keyGroups: [64, 95],
      share: 1,
      skewed: true,
    });
    expect(owners.subtasks[0]!.share).toBeCloseTo(100 / 900);
  });

  it('warns of a subtask holding more than twice the mean', () => {
    expect(stateRows(metrics).keyed[0]!.skew).toBe('subtask 2 holds more than twice the mean');
  });

  it('keeps an operator whose state is still empty, without a warning', () => {
    const empty: RunMetricsEvent = {
      ...metrics,
      operators: [{ id: 'owners', recordsIn: 0, recordsOut: 0, subtasks: [sub(0, 0, 0), sub(1, 0, 0)] }],
    };
    const owners = stateRows(empty).keyed[0]!;
    expect(owners.subtasks.map((s) => s.share)).toEqual([0, 0]);
    expect(owners.skew).toBeUndefined();
  });
});

describe('stateRows with timers', () => {
  it('counts each subtask’s timers, and lists an operator that holds only timers as keyed', () => {
    const timed: RunMetricsEvent = {
      ...metrics,
      operators: [
        {
          id: 'timeouts',
          recordsIn: 5,
          recordsOut: 0,
          subtasks: [
            { ...sub(0), timers: 3 },
            { ...sub(1), timers: 0 },
          ],
        },
        { id: 'owners', recordsIn: 0, recordsOut: 0, subtasks: [sub(0, 10, 1)] },
      ],
    };
    const { keyed, stateless } = stateRows(timed);
    expect(stateless).toEqual([]);
    expect(keyed.map((k) => [k.operator, k.subtasks.map((s) => s.timers)])).toEqual([
      ['timeouts', [3, 0]],
      ['owners', [undefined]],
    ]);
  });
});

describe('stateTotals', () => {
  it('adds up each state over the subtasks, by name and type, in name order', () => {
    const totals = stateTotals([
      {
        states: [
          { state: 'n', type: 'value', keys: 2, entries: 2, bytes: 20 },
          { state: 'items', type: 'map', keys: 2, entries: 7, bytes: 300 },
        ],
      },
      { states: [] },
      {
        states: [
          { state: 'items', type: 'map', keys: 1, entries: 3, bytes: 100 },
          // The same name as another type is another state.
          { state: 'items', type: 'list', keys: 1, entries: 4, bytes: 40 },
          { state: 'n', type: 'value', keys: 3, entries: 3, bytes: 30 },
        ],
      },
    ]);
    expect(totals).toEqual([
      { state: 'items', type: 'list', keys: 1, entries: 4, bytes: 40 },
      { state: 'items', type: 'map', keys: 3, entries: 10, bytes: 400 },
      { state: 'n', type: 'value', keys: 5, entries: 5, bytes: 50 },
    ]);
    expect(stateTotals([])).toEqual([]);
  });
});
