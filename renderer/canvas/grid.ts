// The canvas grid: nodes snap to it when dragged, and anything placed by code lands on it too,
// so positions saved in job files stay round numbers.
import type { XY } from '../document/jobDraft';

export const GRID = 10;

export function snap(p: XY): XY {
  return { x: Math.round(p.x / GRID) * GRID, y: Math.round(p.y / GRID) * GRID };
}
