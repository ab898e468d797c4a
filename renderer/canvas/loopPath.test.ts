import { describe, expect, it } from 'vitest';
import { LANE_GAP } from './edgeLanes';
import { loopRoute, needsLoop, roundedPolyline } from './loopPath';

function points(path: string): number[][] {
  const numbers = path.match(/-?\d+(\.\d+)?/g)!.map(Number);
  const out: number[][] = [];
  for (let k = 0; k < numbers.length; k += 2) out.push([numbers[k]!, numbers[k + 1]!]);
  return out;
}

describe('loop routes', () => {
  it('loops when the target is at or left of the source, not when it is well to the right', () => {
    expect(needsLoop(200, 20)).toBe(true);
    expect(needsLoop(200, 200)).toBe(true);
    expect(needsLoop(200, 400)).toBe(false);
  });

  it('goes from the source handle, under both nodes, into the target handle', () => {
    // A self-loop: a node from x 20 to 200 and y 100 to 164, ports at y 140 and 130.
    const node = { top: 100, bottom: 164 };
    const route = loopRoute({
      sourceX: 200,
      sourceY: 140,
      targetX: 20,
      targetY: 130,
      source: node,
      target: node,
    });
    const ps = points(route.path);
    expect(ps[0]).toEqual([200, 140]);
    expect(ps.at(-1)).toEqual([20, 130]);
    const lowest = Math.max(...ps.map((p) => p[1]!));
    expect(lowest).toBeGreaterThan(164);
    expect(route.labelY).toBe(lowest);
    expect(route.labelX).toBe(110);
    // Never inside the node box horizontally while below its top.
    for (const [x, y] of ps) if (y! > 100 && y! < 164) expect(x! <= 20 || x! >= 200).toBe(true);
  });

  it('crosses in the gap between two nodes when one is clear above the other', () => {
    const upper = { top: 0, bottom: 70 };
    const lower = { top: 150, bottom: 220 };
    const down = loopRoute({
      sourceX: 200,
      sourceY: 40,
      targetX: 20,
      targetY: 180,
      source: upper,
      target: lower,
    });
    expect(down.labelY).toBe(110);
    const up = loopRoute({
      sourceX: 200,
      sourceY: 180,
      targetX: 20,
      targetY: 40,
      source: lower,
      target: upper,
    });
    expect(up.labelY).toBe(110);
    // Too narrow a gap: under both.
    const close = loopRoute({
      sourceX: 200,
      sourceY: 40,
      targetX: 20,
      targetY: 110,
      source: upper,
      target: { top: 90, bottom: 160 },
    });
    expect(close.labelY).toBeGreaterThan(160);
  });

  it('routes the two edges of a stacked two-operator cycle apart, each label in the clear', () => {
    // a above b, both 180 wide and 71 high, 49 px apart: a -> b and b -> a both loop.
    const a = { top: 0, bottom: 71 };
    const b = { top: 120, bottom: 191 };
    const down = loopRoute({
      sourceX: 180,
      sourceY: 55,
      targetX: 0,
      targetY: 175,
      source: a,
      target: b,
      lane: { index: 0, count: 2 },
    });
    const up = loopRoute({
      sourceX: 180,
      sourceY: 175,
      targetX: 0,
      targetY: 55,
      source: b,
      target: a,
      lane: { index: 1, count: 2 },
    });
    // Without lanes both ran down the same right leg, along the same channel and up the same
    // left leg: one rectangle with both labels in one place.
    const extent = (path: string) => {
      const ps = points(path);
      return [
        Math.min(...ps.map((p) => p[0]!)),
        Math.max(...ps.map((p) => p[0]!)),
        Math.max(...ps.map((p) => p[1]!)),
      ];
    };
    const [downLeft, downRight, downLow] = extent(down.path);
    const [upLeft, upRight, upLow] = extent(up.path);
    expect(upLeft).toBeLessThan(downLeft!);
    expect(upRight).toBeGreaterThan(downRight!);
    expect(upLow! - downLow!).toBe(LANE_GAP);
    const label = (r: typeof down) => ({
      left: r.labelX - 40,
      right: r.labelX + 40,
      top: r.labelY - 8.5,
      bottom: r.labelY + 8.5,
    });
    const [p, q] = [label(down), label(up)];
    const overlap = p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom;
    expect(overlap).toBe(false);
    // Both under both nodes, where no card can hide them.
    expect(Math.min(p.top, q.top)).toBeGreaterThan(b.bottom);
    // Only the outer lane has free room under its label for the selected edge's button.
    expect([down.actionSide, up.actionSide]).toEqual(['right', 'below']);
  });

  it('keeps a lone loop in the gap, with its button beside the label, off the node below', () => {
    const route = loopRoute({
      sourceX: 200,
      sourceY: 40,
      targetX: 20,
      targetY: 180,
      source: { top: 0, bottom: 70 },
      target: { top: 150, bottom: 220 },
    });
    expect(route.labelY).toBe(110);
    expect(route.actionSide).toBe('right');
  });

  it('rounds corners without overshooting short segments', () => {
    expect(roundedPolyline([[0, 0]], 10)).toBe('M 0 0');
    expect(
      roundedPolyline(
        [
          [0, 0],
          [10, 0],
          [10, 4],
        ],
        10,
      ),
    ).toBe('M 0 0 L 8 0 Q 10 0 10 2 L 10 4');
    expect(roundedPolyline([], 10)).toBe('');
  });
});
