// Which checkpoint a restore resumes from, the same for the CLI's --restore and the designer's
// "Restart from checkpoint…": `latest` is the newest one whose files are all there and intact (an
// unusable one is skipped, with the reason); an id must be usable itself.
import type { CheckpointMetadata } from './checkpointMetadata.js';
import { CheckpointStorage } from './checkpointStorage.js';

export interface FoundCheckpoint {
  readonly checkpoint?: CheckpointMetadata;
  /** Why the wanted checkpoint cannot be restored (an id only; `latest` falls back to a fresh start). */
  readonly error?: string;
}

/** `say` hears which checkpoint is restored, which ones were skipped and why, or that none was usable. */
export async function findCheckpoint(
  dir: string,
  wanted: 'latest' | number,
  say: (text: string) => void,
): Promise<FoundCheckpoint> {
  const storage = new CheckpointStorage(dir);
  if (wanted !== 'latest') {
    try {
      return { checkpoint: await storage.load(wanted) };
    } catch (error) {
      return { error: `cannot restore: ${(error as Error).message}` };
    }
  }
  for (const id of await storage.completedIds()) {
    try {
      const checkpoint = await storage.load(id);
      say(`restoring checkpoint ${id} from ${dir}`);
      return { checkpoint };
    } catch (error) {
      say(`skipping ${(error as Error).message}`);
    }
  }
  say(`no usable completed checkpoint in ${dir}: starting fresh`);
  return {};
}
