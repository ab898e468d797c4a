import { getBezierPath, Position } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { bezierRoute } from './bezierRoute';
import { LANE_GAP, SINGLE_LANE } from './edgeLanes';

const ends = { sourceX: 200, sourceY: 140, targetX: 420, targetY: 260 };

/** The point of an SVG cubic path `M x,y C ...` at t. */
function pointAt(path: string, t: number): [number, number] {
  const [x0, y0, x1, y1, x2, y2, x3, y3] = path.match(/-?\d+(\.\d+)?/g)!.map(Number) as number[] & {
    length: 8;
  };
  const u = 1 - t;
  const at = (a: number, b: number, c: number, d: number) =>
    u * u * u * a + 3 * u * u * t * b + 3 * u * t * t * c + t * t * t * d;
  return [at(x0!, x1!, x2!, x3!), at(y0!, y1!, y2!, y3!)];
}

describe('straight-across routes', () => {
  it('is React Flow’s own bezier for a lone edge', () => {
    const [path, labelX, labelY] = getBezierPath({
      ...ends,
      sourcePosition: Position.Right,
      targetPosition: Position.Left,
    });
    const route = bezierRoute(ends);
    expect(route).toEqual({ path, labelX, labelY, actionSide: 'below' });
  });

  it('bends edges between the same operators apart, with the label on the curve, one gap apart', () => {
    const upper = bezierRoute(ends, { index: 0, count: 2 });
    const lower = bezierRoute(ends, { index: 1, count: 2 });
    expect(upper.path).not.toBe(lower.path);
    const lone = bezierRoute(ends, SINGLE_LANE);
    expect(lower.labelY - upper.labelY).toBe(LANE_GAP);
    expect(upper.labelX).toBe(lone.labelX);
    for (const route of [upper, lower]) {
      const [x, y] = pointAt(route.path, 0.5);
      expect(x).toBeCloseTo(route.labelX, 6);
      expect(y).toBeCloseTo(route.labelY, 6);
      // Both ends stay on the handles.
      expect(pointAt(route.path, 0)).toEqual([ends.sourceX, ends.sourceY]);
      expect(pointAt(route.path, 1)).toEqual([ends.targetX, ends.targetY]);
    }
    // The upper edge's button would cover the lower label if it went under its own.
    expect([upper.actionSide, lower.actionSide]).toEqual(['right', 'below']);
  });
});
