// The canvas owns the viewport; app commands (menu, keyboard, palette) reach it through this
// module instead of through React, because they run outside the canvas's component tree.
import type { XY } from '../document/jobDraft';

export interface Viewport {
  fit(): void;
  zoomIn(): void;
  zoomOut(): void;
  /** The centre of the visible part of the canvas, in flow coordinates. */
  centre(): XY;
}

let current: Viewport | undefined;

/** Called by the mounted canvas; the returned function unregisters it. */
export function registerViewport(viewport: Viewport): () => void {
  current = viewport;
  return () => {
    if (current === viewport) current = undefined;
  };
}

export const viewportController: Viewport = {
  fit: () => current?.fit(),
  zoomIn: () => current?.zoomIn(),
  zoomOut: () => current?.zoomOut(),
  centre: () => current?.centre() ?? { x: 0, y: 0 },
};
