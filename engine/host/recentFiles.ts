// The recent-files list: a JSON array of absolute paths in the data folder, newest first. The
// host adds to it; the desktop shell reads the same file for its Open Recent menu.
import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { writeTextFileAtomic } from './hostFiles.js';

export const RECENT_LIMIT = 10;

export function recentListFile(dataDir: string): string {
  return join(dataDir, 'recent.json');
}

/**
 * The list as saved. A missing or damaged file is an empty list: the next addition rewrites it,
 * and a broken convenience must not stop the app from starting.
 */
export async function readRecentList(dataDir: string): Promise<string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(recentListFile(dataDir), 'utf8'));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((item): item is string => typeof item === 'string' && isAbsolute(item))
    .slice(0, RECENT_LIMIT);
}

export class RecentFiles {
  /** Additions run one after another, so two quick ones cannot both read the old list and lose one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataDir: string) {}

  list(): Promise<string[]> {
    return readRecentList(this.dataDir);
  }

  add(path: string): Promise<string[]> {
    const next = this.queue.then(() => this.addNow(path));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async addNow(path: string): Promise<string[]> {
    if (!isAbsolute(path))
      throw new Error(`Cannot add ${path} to the recent files: the path must be absolute`);
    const file = resolve(path);
    const list = [file, ...(await readRecentList(this.dataDir)).filter((item) => item !== file)].slice(
      0,
      RECENT_LIMIT,
    );
    try {
      await mkdir(this.dataDir, { recursive: true });
    } catch (error) {
      throw new Error(`Cannot create the data folder ${this.dataDir}: ${(error as Error).message}`);
    }
    await writeTextFileAtomic(recentListFile(this.dataDir), `${JSON.stringify(list, null, 2)}\n`);
    return list;
  }
}
