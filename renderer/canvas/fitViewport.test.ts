import type { Node } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { FIT_PADDING, fitViewport, READABLE_ZOOM } from './fitViewport';
import { minimapRect } from './minimapPreference';

function node(id: string, x: number, y: number, width = 180, height = 71): Node {
  return { id, position: { x, y }, data: {}, measured: { width, height } };
}

function shown(viewport: { x: number; y: number; zoom: number }, x: number, y: number) {
  return { x: x * viewport.zoom + viewport.x, y: y * viewport.zoom + viewport.y };
}

/** A chain of `n` cards 330 apart, as the automatic layout draws one. */
const chain = (n: number) => Array.from({ length: n }, (_, k) => node(`n${k}`, k * 330, 0));

describe('fitViewport', () => {
  it('fits a job that fits at a readable zoom whole, centred', () => {
    const canvas = { width: 1_000, height: 600 };
    const viewport = fitViewport(chain(3), canvas, { maxZoom: 1.25 });
    const left = shown(viewport, 0, 0);
    const right = shown(viewport, 2 * 330 + 180, 71);
    expect(viewport.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
    expect(left.x).toBeGreaterThanOrEqual(FIT_PADDING);
    expect(right.x).toBeLessThanOrEqual(canvas.width - FIT_PADDING + 0.5);
    expect(left.x).toBeCloseTo(canvas.width - right.x, 0);
    expect(left.y).toBeCloseTo(canvas.height - right.y, 0);
  });

  it('goes no further out than a readable zoom: a chain too long shows from its source, left', () => {
    // A five-operator chain on the canvas of a 1400×900 window: fitting it whole took zoom 0.5.
    const canvas = { width: 840, height: 580 };
    const viewport = fitViewport(chain(5), canvas, { maxZoom: 1.25 });
    expect(viewport.zoom).toBe(READABLE_ZOOM);
    expect(shown(viewport, 0, 0).x).toBeCloseTo(FIT_PADDING, 5);
    // Vertically it fits, so it is centred.
    expect(shown(viewport, 0, 0).y).toBeCloseTo(canvas.height - shown(viewport, 0, 71).y, 0);
  });

  it('keeps every card out from under the minimap, beside or above it', () => {
    const canvas = { width: 840, height: 580 };
    const map = minimapRect(canvas);
    // Two rows: the lower right card sits where the minimap is when centred.
    const nodes = [node('a', 0, 0), node('b', 330, 0), node('c', 0, 300), node('d', 330, 300)];
    const viewport = fitViewport(nodes, canvas, { maxZoom: 1.25, minimap: map });
    for (const n of nodes) {
      const at = shown(viewport, n.position.x, n.position.y);
      const end = shown(viewport, n.position.x + 180, n.position.y + 71);
      const clear =
        end.x <= map.x || at.x >= map.x + map.width || end.y <= map.y || at.y >= map.y + map.height;
      expect(clear, n.id).toBe(true);
    }
  });

  it('does not zoom in past maxZoom on a small job, and stays at zoom 1 without nodes or size', () => {
    expect(fitViewport([node('a', 0, 0)], { width: 1_440, height: 900 }, { maxZoom: 1.25 }).zoom).toBe(1.25);
    expect(fitViewport([], { width: 800, height: 600 }, { maxZoom: 1.25 })).toEqual({ x: 0, y: 0, zoom: 1 });
    expect(fitViewport([node('a', 50, 50)], { width: 0, height: 0 }, { maxZoom: 1.25 })).toEqual({
      x: 0,
      y: 0,
      zoom: 1,
    });
  });
});
