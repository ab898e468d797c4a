import { describe, expect, it } from 'vitest';
import {
  clampPanelsHeight,
  defaultPanelsHeight,
  type HeightStorage,
  MIN_PANELS_HEIGHT,
  readPanelsHeight,
  writePanelsHeight,
} from './panelsHeight';

function memoryStorage(): HeightStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

describe('the bottom panels’ height', () => {
  it('defaults to enough of a 1600×1000 window for the Debugger and State panels', () => {
    const height = defaultPanelsHeight(1000);
    expect(height).toBeGreaterThanOrEqual(300);
    expect(height).toBeLessThanOrEqual(400);
  });

  it('gives a tall window’s panels over a third of it, and a short window’s canvas the most of it', () => {
    expect(defaultPanelsHeight(1440)).toBe(547);
    expect(defaultPanelsHeight(900)).toBe(240);
    expect(defaultPanelsHeight(600)).toBe(200);
    expect(defaultPanelsHeight(380)).toBe(180);
    expect(defaultPanelsHeight(250)).toBe(MIN_PANELS_HEIGHT);
  });

  it('keeps any height inside the window', () => {
    expect(clampPanelsHeight(900, 1000)).toBe(800);
    expect(clampPanelsHeight(10, 1000)).toBe(MIN_PANELS_HEIGHT);
    expect(clampPanelsHeight(333.4, 1000)).toBe(333);
  });

  it('remembers the height the user chose', () => {
    const storage = memoryStorage();
    expect(readPanelsHeight(storage)).toBeUndefined();
    writePanelsHeight(storage, 412.6);
    expect(readPanelsHeight(storage)).toBe(413);
  });

  it('ignores what it cannot use: no storage, storage that throws, a value that is no height', () => {
    expect(readPanelsHeight(undefined)).toBeUndefined();
    const refusing: HeightStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(readPanelsHeight(refusing)).toBeUndefined();
    expect(() => writePanelsHeight(refusing, 300)).not.toThrow();
    const storage = memoryStorage();
    for (const bad of ['', 'tall', '-5', '0', 'Infinity']) {
      storage.items.set('pipewright.panelsHeight', bad);
      expect(readPanelsHeight(storage)).toBeUndefined();
    }
  });
});
