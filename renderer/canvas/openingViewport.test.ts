import type { Node } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { openingViewport } from './openingViewport';

const OPTIONS = { padding: 0.1, minZoom: 0.05, maxZoom: 1.25 };

function node(id: string, x: number, y: number, width = 180, height = 71): Node {
  return { id, position: { x, y }, data: {}, measured: { width, height } };
}

function shown(viewport: { x: number; y: number; zoom: number }, x: number, y: number) {
  return { x: x * viewport.zoom + viewport.x, y: y * viewport.zoom + viewport.y };
}

describe('openingViewport', () => {
  it('fits every node inside the canvas, padding included, and centres them', () => {
    const nodes = [node('a', 0, 0), node('b', 11_760, 1_080)];
    const canvas = { width: 1_000, height: 600 };
    const viewport = openingViewport(nodes, canvas, OPTIONS);
    const topLeft = shown(viewport, 0, 0);
    const bottomRight = shown(viewport, 11_760 + 180, 1_080 + 71);
    expect(topLeft.x).toBeGreaterThanOrEqual(0);
    expect(bottomRight.x).toBeLessThanOrEqual(canvas.width);
    expect(topLeft.y).toBeGreaterThanOrEqual(0);
    expect(bottomRight.y).toBeLessThanOrEqual(canvas.height);
    // Width is the tight side: the graph spans the canvas less the padding, and is centred.
    expect(bottomRight.x - topLeft.x).toBeCloseTo(canvas.width / 1.1, -1);
    expect(topLeft.x).toBeCloseTo(canvas.width - bottomRight.x, 0);
    expect(topLeft.y).toBeCloseTo(canvas.height - bottomRight.y, 0);
  });

  it('uses each node’s size, so a tall card is not cut off', () => {
    const viewport = openingViewport([node('a', 0, 0, 180, 500)], { width: 400, height: 400 }, OPTIONS);
    expect(shown(viewport, 0, 500).y).toBeLessThanOrEqual(400);
  });

  it('does not zoom in past maxZoom on a small job', () => {
    expect(openingViewport([node('a', 0, 0)], { width: 1_440, height: 900 }, OPTIONS).zoom).toBe(1.25);
  });

  it('stays at zoom 1 at the origin without nodes or without a canvas size', () => {
    expect(openingViewport([], { width: 800, height: 600 }, OPTIONS)).toEqual({ x: 0, y: 0, zoom: 1 });
    expect(openingViewport([node('a', 50, 50)], { width: 0, height: 0 }, OPTIONS)).toEqual({
      x: 0,
      y: 0,
      zoom: 1,
    });
  });
});
