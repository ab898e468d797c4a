// A sink.jsonl run on Flink writes through Flink's FileSink: part files in a folder, committed
// by checkpoints (a failed attempt's data stays in hidden `.part-*.inprogress.*` files). The job
// file's sink names one file, as the local engine writes it: once the job has finished, the
// committed parts are joined into that file in name order, and the folder removed. The runner
// names a part by when it was opened (flink/PROTOCOL.md, `sinkDirs`): FileSink's own names give
// no order, since a writer takes a new random id, its counter back at 0, after every restart.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';

/** The folder a sink's parts go to: hidden, beside the file they become. */
export function flinkSinkDir(path: string): string {
  return join(dirname(path), `.${basename(path)}.flink`);
}

/** Committed parts; anything else (`.part-*.inprogress.*`, hidden) is not output. */
const PART = /^part-/;

/** The committed parts of a sink's folder, in the order their records were written. */
export async function committedParts(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // Plain code unit order: the names are ASCII, their time and sequence fixed-width digits.
  return names
    .filter((name) => PART.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => join(dir, name));
}

/**
 * A run that starts from a savepoint continues the stopped run's output: the sink's file, as
 * that run joined it, becomes the folder's first part (its name sorts before any part the runner
 * names by time), so the join at the end writes it, then what this run adds.
 */
export async function continueSinkFile(dir: string, path: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  try {
    await rename(path, join(dir, 'part-0000000000000-000000000-continued-0'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Joins the committed parts into `path` (written whole, then renamed over it) and removes the folder. */
export async function joinSinkParts(dir: string, path: string): Promise<void> {
  const parts = await committedParts(dir);
  const partial = join(dirname(path), `.${basename(path)}.joining`);
  try {
    const out = createWriteStream(partial);
    try {
      for (const part of parts) {
        for await (const chunk of createReadStream(part)) {
          if (!out.write(chunk)) await once(out, 'drain');
        }
      }
    } finally {
      out.end();
      await finished(out);
    }
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  await rm(dir, { recursive: true, force: true });
}
