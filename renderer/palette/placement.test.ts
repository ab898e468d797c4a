import { describe, expect, it } from 'vitest';
import { NODE_HEIGHT, NODE_WIDTH } from '../document/autoLayout';
import type { XY } from '../document/jobDraft';
import { placeNear } from './placement';

const clear = (a: XY, b: XY) => Math.abs(a.x - b.x) >= NODE_WIDTH || Math.abs(a.y - b.y) >= NODE_HEIGHT;

describe('placing a clicked kind', () => {
  it('centres the node on the point, on the grid, where the point is free', () => {
    const at = placeNear({ x: 403, y: 298 }, [{ x: 2000, y: 2000 }]);
    expect(at.x % 10).toBe(0);
    expect(at.y % 10).toBe(0);
    expect(Math.abs(at.x + NODE_WIDTH / 2 - 403)).toBeLessThanOrEqual(5);
    expect(Math.abs(at.y + NODE_HEIGHT / 2 - 298)).toBeLessThanOrEqual(5);
  });

  it('takes the nearest free spot when an operator is in the middle, so nothing is hidden', () => {
    const existing = { x: 310, y: 270 };
    const at = placeNear({ x: 400, y: 300 }, [existing]);
    expect(clear(at, existing)).toBe(true);
    expect(Math.hypot(at.x - existing.x, at.y - existing.y)).toBeLessThan(NODE_WIDTH + 100);
  });

  it('gives repeated clicks places that do not overlap', () => {
    const taken: XY[] = [];
    for (let k = 0; k < 6; k++) taken.push(placeNear({ x: 0, y: 0 }, taken));
    for (const a of taken) for (const b of taken) if (a !== b) expect(clear(a, b)).toBe(true);
  });
});
