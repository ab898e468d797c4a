// Where a kind clicked in the palette lands: the middle of what the user is looking at, or the
// free place nearest to it, so a click never hides an operator under another (and clicking
// twice gives two visible operators).
import { snap } from '../canvas/grid';
import { NODE_HEIGHT, NODE_WIDTH } from '../document/autoLayout';
import type { XY } from '../document/jobDraft';

/** Space kept clear around a node; cards with side outputs are taller than NODE_HEIGHT. */
const MARGIN = 20;
const STEP = 40;
const RINGS = 15;

// Nearest first, so the search stops at the free spot closest to the centre.
const OFFSETS: readonly XY[] = (() => {
  const out: XY[] = [];
  for (let i = -RINGS; i <= RINGS; i++)
    for (let j = -RINGS; j <= RINGS; j++) out.push({ x: i * STEP, y: j * STEP });
  return out.sort((a, b) => Math.hypot(a.x, a.y) - Math.hypot(b.x, b.y));
})();

function overlaps(a: XY, b: XY): boolean {
  return Math.abs(a.x - b.x) < NODE_WIDTH + MARGIN && Math.abs(a.y - b.y) < NODE_HEIGHT + MARGIN;
}

/** The top-left corner for a new node centred on `centre`, or on the nearest spot clear of nodes at `taken`. */
export function placeNear(centre: XY, taken: readonly XY[]): XY {
  const start = snap({ x: centre.x - NODE_WIDTH / 2, y: centre.y - NODE_HEIGHT / 2 });
  for (const offset of OFFSETS) {
    const at = { x: start.x + offset.x, y: start.y + offset.y };
    if (!taken.some((p) => overlaps(p, at))) return at;
  }
  // Everything near is taken: stack with a visible offset rather than exactly on top.
  return { x: start.x + MARGIN, y: start.y + MARGIN };
}
