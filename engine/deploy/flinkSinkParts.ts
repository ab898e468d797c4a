// A sink.jsonl run on Flink writes through Flink's FileSink: part files in a folder, committed
// by checkpoints (a failed attempt's data stays in hidden `.part-*.inprogress.*` files). The job
// file's sink names one file, as the local engine writes it: once the job has finished, the
// committed parts are joined into that file, in subtask then part order, and the folder removed.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';

/** The folder a sink's parts go to: hidden, beside the file they become. */
export function flinkSinkDir(path: string): string {
  return join(dirname(path), `.${basename(path)}.flink`);
}

/** FileSink's names: `part-<uuid>-<subtask>-<counter>`; anything else (in-progress, hidden) is not output. */
const PART = /^part-[0-9a-f-]+-(\d+)-(\d+)$/;

/** The committed parts of a sink's folder, in the order their records were written. */
export async function committedParts(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => ({ name, match: PART.exec(name) }))
    .filter((p): p is { name: string; match: RegExpExecArray } => p.match !== null)
    .sort((a, b) => Number(a.match[1]) - Number(b.match[1]) || Number(a.match[2]) - Number(b.match[2]))
    .map((p) => join(dir, p.name));
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
