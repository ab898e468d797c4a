// How tall the bottom panels are. By default a share of the window that shows the Debugger's
// step and the State panel's table without dragging (a fixed 220 px was a sixth of a 1000 px
// window), as long as the canvas keeps most of a shorter window; once the user drags the
// splitter, their height, kept in localStorage so that it survives a reload (the desktop
// shell's renderer has a fixed origin, so there it survives a restart too). A height is always
// clamped to the window the panels are in now.

export const MIN_PANELS_HEIGHT = 120;
/** What the menu bar, the toolbars and a usable canvas need above the panels. */
const ROOM_ABOVE = 200;
/** The default's share of the window. */
const DEFAULT_SHARE = 0.38;
/** The default gives the panels no more than leaves this much of the window above them. */
const CANVAS_FIRST = 660;
/** Nor less than this, however short the window (the clamp still applies). */
const DEFAULT_FLOOR = 200;
const STORAGE_KEY = 'pipewright.panelsHeight';

export function maxPanelsHeight(windowHeight: number): number {
  return Math.max(MIN_PANELS_HEIGHT, windowHeight - ROOM_ABOVE);
}

export function clampPanelsHeight(height: number, windowHeight: number): number {
  return Math.round(Math.max(MIN_PANELS_HEIGHT, Math.min(maxPanelsHeight(windowHeight), height)));
}

export function defaultPanelsHeight(windowHeight: number): number {
  const share = Math.min(windowHeight * DEFAULT_SHARE, windowHeight - CANVAS_FIRST);
  return clampPanelsHeight(Math.max(DEFAULT_FLOOR, share), windowHeight);
}

/** The part of Web Storage used here: localStorage, or a stand-in in tests. */
export interface HeightStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The user's last height, or undefined when there is none (or storage cannot be read). */
export function readPanelsHeight(storage: HeightStorage | undefined): number | undefined {
  try {
    const text = storage?.getItem(STORAGE_KEY);
    const value = text == null ? Number.NaN : Number(text);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

export function writePanelsHeight(storage: HeightStorage | undefined, height: number): void {
  try {
    storage?.setItem(STORAGE_KEY, String(Math.round(height)));
  } catch {
    // Storage full or refused (a private window): the height still holds until the page is left.
  }
}

/** The page's localStorage, when it may be used at all (reading the property can throw). */
export function pageStorage(): HeightStorage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}
