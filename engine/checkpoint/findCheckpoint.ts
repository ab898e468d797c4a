// Which checkpoint a restore resumes from, the same for the CLI's --restore and the designer's
// "Restart from checkpoint…": `latest` is the newest one whose files are all there and intact (an
// unusable one is skipped, with the reason); an id must be usable itself. One a finished run ended
// with is said to be so: restoring it runs nothing.
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
    const ids = await storage.completedIds();
    if (!ids.includes(wanted)) return { error: notThere(dir, wanted, ids) };
    let checkpoint: CheckpointMetadata;
    try {
      checkpoint = await storage.load(wanted);
    } catch (error) {
      return { error: `cannot restore: ${(error as Error).message}` };
    }
    if (checkpoint.finished === true) say(finishedRun(checkpoint));
    return { checkpoint };
  }
  for (const id of await storage.completedIds()) {
    try {
      const checkpoint = await storage.load(id);
      say(`restoring checkpoint ${id} from ${dir}`);
      if (checkpoint.finished === true) say(finishedRun(checkpoint));
      return { checkpoint };
    } catch (error) {
      say(`skipping ${(error as Error).message}`);
    }
  }
  say(`no usable completed checkpoint in ${dir}: starting fresh`);
  return {};
}

/** What restoring the checkpoint a finished run ended with does. */
function finishedRun(checkpoint: CheckpointMetadata): string {
  return `checkpoint ${checkpoint.id} is where job "${checkpoint.job}" finished (at ${checkpoint.completedAt}): nothing is left to run, and its output stays as committed`;
}

/** A `--restore ID` that names no checkpoint of the folder: the ids it has, to pick from. */
function notThere(dir: string, wanted: number, ids: readonly number[]): string {
  const missing = `cannot restore: there is no checkpoint ${wanted} in ${dir}`;
  if (ids.length === 0) return `${missing}, nor any other`;
  const oldestFirst = [...ids].sort((a, b) => a - b);
  const noun = ids.length === 1 ? 'checkpoint' : 'checkpoints';
  return `${missing}; it holds ${noun} ${oldestFirst.join(', ')}`;
}
