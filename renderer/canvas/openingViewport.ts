// The viewport a job is first shown at: all of it, fitted to the canvas. Computed before React
// Flow mounts, from the nodes' known sizes, so the first render is already the fitted one; React
// Flow's own `fitView` on mount would first draw every node at zoom 1 to measure it, then fit.
import { getNodesBounds, getViewportForBounds, type Node, type Viewport } from '@xyflow/react';
import type { Size } from './cardGeometry';

export interface FitOptions {
  readonly padding: number;
  readonly minZoom: number;
  readonly maxZoom: number;
}

export function openingViewport(nodes: readonly Node[], canvas: Size, options: FitOptions): Viewport {
  if (nodes.length === 0 || canvas.width <= 0 || canvas.height <= 0) return { x: 0, y: 0, zoom: 1 };
  const bounds = getNodesBounds([...nodes]);
  return getViewportForBounds(
    bounds,
    canvas.width,
    canvas.height,
    options.minZoom,
    options.maxZoom,
    options.padding,
  );
}
