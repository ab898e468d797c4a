// The main window's size and position, remembered in the data folder between runs. A saved
// position is used only if it still lies on a connected display (a monitor may be gone).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rectangle } from 'electron';

export interface WindowState {
  readonly bounds: { x?: number; y?: number; width: number; height: number };
  readonly maximized: boolean;
}

const DEFAULT_STATE: WindowState = { bounds: { width: 1400, height: 900 }, maximized: false };
export const MIN_WINDOW_SIZE = { width: 800, height: 500 };

function stateFile(dataDir: string): string {
  return join(dataDir, 'window-state.json');
}

function isWhole(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

function overlaps(a: Rectangle, b: Rectangle): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function loadWindowState(dataDir: string, workAreas: readonly Rectangle[]): WindowState {
  let saved: { bounds?: Partial<Record<'x' | 'y' | 'width' | 'height', unknown>>; maximized?: unknown };
  try {
    saved = JSON.parse(readFileSync(stateFile(dataDir), 'utf8'));
  } catch {
    return DEFAULT_STATE;
  }
  const { x, y, width, height } = saved.bounds ?? {};
  if (!isWhole(width) || !isWhole(height)) return DEFAULT_STATE;
  const size = {
    width: Math.max(width, MIN_WINDOW_SIZE.width),
    height: Math.max(height, MIN_WINDOW_SIZE.height),
  };
  const maximized = saved.maximized === true;
  if (isWhole(x) && isWhole(y) && workAreas.some((area) => overlaps({ x, y, ...size }, area))) {
    return { bounds: { x, y, ...size }, maximized };
  }
  return { bounds: size, maximized };
}

/** Synchronous: it runs as the window closes, and the app may quit right after. */
export function saveWindowState(dataDir: string, state: WindowState): void {
  const file = stateFile(dataDir);
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(`${file}.tmp`, `${JSON.stringify(state)}\n`);
    renameSync(`${file}.tmp`, file);
  } catch (error) {
    // Losing the window's position is not worth an error dialog while the app closes.
    console.error(`pipewright: cannot save the window position in ${file}: ${(error as Error).message}`);
  }
}
