import { describe, expect, it } from 'vitest';
import { centredOffset, edgeLanes, isLowestLane, LANE_GAP, SINGLE_LANE } from './edgeLanes';

const e = (edgeId: string, source: string, target: string) => ({ edgeId, source, target });

describe('edge lanes', () => {
  it('puts the two edges of a two-operator cycle in one group, either way round', () => {
    const lanes = edgeLanes([e('ab', 'a', 'b'), e('ba', 'b', 'a')]);
    expect(lanes.get('ab')).toEqual({ index: 0, count: 2 });
    expect(lanes.get('ba')).toEqual({ index: 1, count: 2 });
  });

  it('groups parallel edges and self-loops by their operators, in the order of the document', () => {
    const lanes = edgeLanes([
      e('x1', 'src', 'p'),
      e('self1', 'p', 'p'),
      e('x2', 'src', 'p'),
      e('other', 'p', 'sink'),
      e('self2', 'p', 'p'),
      e('x3', 'p', 'src'),
    ]);
    expect(lanes.get('x1')).toEqual({ index: 0, count: 3 });
    expect(lanes.get('x2')).toEqual({ index: 1, count: 3 });
    expect(lanes.get('x3')).toEqual({ index: 2, count: 3 });
    expect(lanes.get('self1')).toEqual({ index: 0, count: 2 });
    expect(lanes.get('self2')).toEqual({ index: 1, count: 2 });
    expect(lanes.get('other')).toBe(SINGLE_LANE);
  });

  it('keeps node ids that only look alike apart', () => {
    const lanes = edgeLanes([e('1', 'a', 'bc'), e('2', 'ab', 'c')]);
    expect(lanes.get('1')).toBe(SINGLE_LANE);
    expect(lanes.get('2')).toBe(SINGLE_LANE);
  });

  it('centres a group on the lone edge’s route, one gap between neighbours', () => {
    expect(centredOffset(SINGLE_LANE)).toBe(0);
    expect([0, 1].map((index) => centredOffset({ index, count: 2 }))).toEqual([-LANE_GAP / 2, LANE_GAP / 2]);
    expect([0, 1, 2].map((index) => centredOffset({ index, count: 3 }))).toEqual([-LANE_GAP, 0, LANE_GAP]);
    expect(isLowestLane(SINGLE_LANE)).toBe(true);
    expect(isLowestLane({ index: 0, count: 2 })).toBe(false);
    expect(isLowestLane({ index: 1, count: 2 })).toBe(true);
  });
});
