// Where "fit" puts the view: the whole job if it fits at a zoom where its text can be read, else
// as much of it as fits at that zoom, starting with its sources (top left); and never under the
// minimap. Fitting every job whatever its size shrank a five-operator chain to labels of about
// 5 px on a 1400×900 window: a view nobody can read is not a fit. Computed from the nodes' known
// sizes, so a job opens already fitted (React Flow's own fitView would first draw every node at
// zoom 1 to measure it) and the canvas can fit again whenever its size changes.
import { getNodesBounds, type Node, type Viewport } from '@xyflow/react';
import type { Size } from './cardGeometry';

/**
 * The least zoom a fit goes to: the canvas's smallest text (edge labels and port names, 10.5 px)
 * is then 10 px on screen. Zooming out further is the user's choice.
 */
export const READABLE_ZOOM = 0.96;
/** Around the job, in screen pixels. */
export const FIT_PADDING = 24;
/** Between the job and the minimap. */
const MINIMAP_GAP = 8;

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface FitOptions {
  readonly maxZoom: number;
  /** The minimap's box in the canvas (canvas coordinates), when it is shown. */
  readonly minimap?: Rect;
}

function nodeRect(node: Node): Rect {
  return {
    x: node.position.x,
    y: node.position.y,
    width: node.measured?.width ?? node.width ?? 0,
    height: node.measured?.height ?? node.height ?? 0,
  };
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * The job in `area` (canvas coordinates): centred on each axis where it fits at the zoom, else
 * from its left or top edge, so the sources show.
 */
function placeIn(bounds: Rect, area: Rect, maxZoom: number): Viewport {
  const room = { width: area.width - 2 * FIT_PADDING, height: area.height - 2 * FIT_PADDING };
  const fits = Math.min(room.width / Math.max(bounds.width, 1), room.height / Math.max(bounds.height, 1));
  const zoom = Math.min(maxZoom, Math.max(READABLE_ZOOM, fits));
  const along = (start: number, span: number, areaStart: number, roomSpan: number) =>
    span * zoom <= roomSpan
      ? areaStart + FIT_PADDING + (roomSpan - span * zoom) / 2 - start * zoom
      : areaStart + FIT_PADDING - start * zoom;
  return {
    x: along(bounds.x, bounds.width, area.x, room.width),
    y: along(bounds.y, bounds.height, area.y, room.height),
    zoom,
  };
}

/** How many nodes the minimap would cover at this viewport. */
function covered(nodes: readonly Node[], viewport: Viewport, minimap: Rect): number {
  const guard = {
    x: minimap.x - MINIMAP_GAP,
    y: minimap.y - MINIMAP_GAP,
    width: minimap.width + 2 * MINIMAP_GAP,
    height: minimap.height + 2 * MINIMAP_GAP,
  };
  let count = 0;
  for (const node of nodes) {
    const r = nodeRect(node);
    const onScreen = {
      x: r.x * viewport.zoom + viewport.x,
      y: r.y * viewport.zoom + viewport.y,
      width: r.width * viewport.zoom,
      height: r.height * viewport.zoom,
    };
    if (overlaps(onScreen, guard)) count++;
  }
  return count;
}

/**
 * The fitted viewport of `nodes` on a canvas of `canvas` size. With a minimap, the job goes in
 * the whole canvas if the minimap then covers nothing, else beside or above the minimap,
 * whichever shows it larger (covering the fewest nodes, if neither covers none).
 */
export function fitViewport(nodes: readonly Node[], canvas: Size, options: FitOptions): Viewport {
  if (nodes.length === 0 || canvas.width <= 0 || canvas.height <= 0) return { x: 0, y: 0, zoom: 1 };
  const bounds = getNodesBounds([...nodes]);
  const whole = { x: 0, y: 0, width: canvas.width, height: canvas.height };
  const full = placeIn(bounds, whole, options.maxZoom);
  const minimap = options.minimap;
  if (minimap === undefined || covered(nodes, full, minimap) === 0) return full;
  const beside = { ...whole, width: Math.max(minimap.x - MINIMAP_GAP, 1) };
  const above = { ...whole, height: Math.max(minimap.y - MINIMAP_GAP, 1) };
  const candidates = [beside, above]
    .map((area) => placeIn(bounds, area, options.maxZoom))
    .map((viewport) => ({ viewport, covers: covered(nodes, viewport, minimap) }))
    .sort((a, b) => a.covers - b.covers || b.viewport.zoom - a.viewport.zoom);
  return candidates[0]!.viewport;
}
