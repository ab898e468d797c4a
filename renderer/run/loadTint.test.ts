import { describe, expect, it } from 'vitest';
import type { RunMetricsEvent, SubtaskLive } from '../../engine/protocol/protocol.js';
import {
  busyColour,
  edgeTint,
  heldColour,
  LOAD_LEVELS,
  loadLevel,
  type Measured,
  operatorTint,
  sharesOf,
  tintsOf,
} from './loadTint';

function subtask(index: number, busy: number, held: number): SubtaskLive {
  return {
    subtask: index,
    recordsIn: 0,
    recordsOut: 0,
    queued: 0,
    keyGroups: [0, 127],
    busyTimeMsPerSecond: busy,
    backPressuredTimeMsPerSecond: held,
    idleTimeMsPerSecond: 1000 - busy - held,
  };
}

describe('load tints', () => {
  it('rounds a share of a second to a level and clamps what is out of range', () => {
    expect(loadLevel(0)).toBe(0);
    expect(loadLevel(40)).toBe(0);
    expect(loadLevel(550)).toBe(6);
    expect(loadLevel(1000)).toBe(LOAD_LEVELS);
    expect(loadLevel(3000)).toBe(LOAD_LEVELS);
    expect(loadLevel(-1)).toBe(0);
    expect(loadLevel(Number.NaN)).toBe(0);
  });

  it('goes from blue through violet to red for operators, from green through amber to red for edges', () => {
    expect(busyColour(0)).toBe('hsl(210 80% 50%)');
    expect(busyColour(5)).toBe('hsl(285 80% 50%)');
    expect(busyColour(LOAD_LEVELS)).toBe('hsl(0 80% 50%)');
    expect(heldColour(0)).toBe('hsl(120 75% 40%)');
    expect(heldColour(6)).toBe('hsl(48 75% 40%)');
    expect(heldColour(LOAD_LEVELS)).toBe('hsl(0 75% 40%)');
  });

  it('says the three shares in whole percent adding up to 100, busy the rest as the engine has it', () => {
    const shares = (busy: number, held: number) => sharesOf(subtask(0, busy, held) as Measured);
    expect(shares(995, 0)).toEqual({ busy: 99, held: 0, idle: 1 });
    expect(shares(5, 990)).toEqual({ busy: 0, held: 99, idle: 1 });
    expect(shares(333, 333)).toEqual({ busy: 34, held: 33, idle: 33 });
  });

  it('tints an operator by its busiest subtask, and says which', () => {
    const op = {
      id: 'slow',
      recordsIn: 0,
      recordsOut: 0,
      subtasks: [subtask(0, 400, 0), subtask(1, 980, 0)],
    };
    expect(operatorTint(op)).toEqual({
      level: 10,
      tip: 'busy 98%, backpressured 0%, idle 2% (subtask 1, the busiest of 2)',
    });
    expect(operatorTint({ ...op, subtasks: [subtask(0, 10, 960)] })).toEqual({
      level: 0,
      tip: 'busy 1%, backpressured 96%, idle 3%',
    });
    // A debug run measures nothing: no tint.
    expect(
      operatorTint({
        ...op,
        subtasks: [{ subtask: 0, recordsIn: 0, recordsOut: 0, queued: 0, keyGroups: [0, 1] }],
      }),
    ).toBe(undefined);
  });

  it('tints an edge by how much its producer is held back', () => {
    expect(edgeTint({ id: 'e1', from: 'gen', backPressuredTimeMsPerSecond: 974 })).toEqual({
      level: 10,
      tip: 'backpressured 97%: “gen” held back 97% of the last second',
    });
    expect(edgeTint({ id: 'e1', from: 'gen' })).toBeUndefined();
  });

  it('takes every tint of a metrics event', () => {
    const event: RunMetricsEvent = {
      runId: 'r',
      elapsedMs: 0,
      operators: [{ id: 'gen', recordsIn: 0, recordsOut: 0, subtasks: [subtask(0, 10, 990)] }],
      edges: [{ id: 'e1', from: 'gen', backPressuredTimeMsPerSecond: 990 }],
    };
    const tints = tintsOf(event);
    expect([...tints.operators.keys()]).toEqual(['gen']);
    expect(tints.edges.get('e1')?.level).toBe(10);
  });
});
