// Whether the canvas shows its minimap: the user's choice, kept in localStorage so that it holds
// across a reload (and, in the desktop shell, a restart), and the box it takes in the canvas, so
// that a fit can keep the job out from under it (fitViewport.ts).
import type { Size } from './cardGeometry';
import type { Rect } from './fitViewport';

const STORAGE_KEY = 'pipewright.minimap';

/** React Flow's panel margin round the minimap (`.react-flow__panel`). */
const PANEL_MARGIN = 15;
/** Its border (canvas.css), outside the drawing. */
const BORDER = 1;
const LARGEST = 150;
const SMALLEST = 60;
/** The minimap's share of the canvas's height: a short canvas (tall bottom panels) needs the room for the job. */
const SHARE = 0.25;

/** The minimap's drawing: 200×150, smaller on a short canvas, 4:3 always. */
export function minimapSize(canvas: Size): Size {
  const height = Math.round(Math.min(LARGEST, Math.max(SMALLEST, canvas.height * SHARE)));
  return { width: Math.round((height * 4) / 3), height };
}

/** Where the minimap sits in a canvas of `canvas` size: the bottom right corner. */
export function minimapRect(canvas: Size): Rect {
  const size = minimapSize(canvas);
  const width = size.width + 2 * BORDER;
  const height = size.height + 2 * BORDER;
  return { x: canvas.width - PANEL_MARGIN - width, y: canvas.height - PANEL_MARGIN - height, width, height };
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function readMinimapShown(): boolean {
  try {
    return storage()?.getItem(STORAGE_KEY) !== 'hidden';
  } catch {
    return true;
  }
}

export function writeMinimapShown(shown: boolean): void {
  try {
    if (shown) storage()?.removeItem(STORAGE_KEY);
    else storage()?.setItem(STORAGE_KEY, 'hidden');
  } catch {
    // Storage refused (a private window): the choice holds until the page is left.
  }
}
