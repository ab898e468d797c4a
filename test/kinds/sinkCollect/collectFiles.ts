// Where sink.collect keeps its files, shared by its writer and its committer as names only (so
// the two could live on different threads): a writer stages the records of one subtask between
// two barriers in `staging/<epoch>-<subtask>.jsonl`; committing checkpoint c moves such a file to
// `committed/<c>-<epoch>-<subtask>.jsonl` (`end-...` for the end of a bounded job).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const STAGING = 'staging';
export const COMMITTED = 'committed';

/** A staged file's name: the epoch is the id of the checkpoint whose barrier closed it. */
export function stagedName(epoch: number, subtask: number): string {
  return `${epoch}-${subtask}.jsonl`;
}

/** The name a staged file takes once committed by checkpoint `by` (or the end of the job). */
export function committedName(by: number | 'end', staged: string): string {
  return `${by}-${staged}`;
}

export interface CommittedFile {
  readonly name: string;
  /** The checkpoint that committed it; Infinity for the end of the job. */
  readonly by: number;
  readonly epoch: number;
  readonly subtask: number;
}

const COMMITTED_NAME = /^(\d+|end)-(\d+)-(\d+)\.jsonl$/;

export function parseCommitted(name: string): CommittedFile | undefined {
  const match = COMMITTED_NAME.exec(name);
  if (match === null) return undefined;
  return {
    name,
    by: match[1] === 'end' ? Number.POSITIVE_INFINITY : Number(match[1]),
    epoch: Number(match[2]),
    subtask: Number(match[3]),
  };
}

/** The committed files, in the order they were committed (a key's records stay in order). */
export async function committedFiles(dir: string): Promise<CommittedFile[]> {
  const names = await readdir(join(dir, COMMITTED)).catch(() => [] as string[]);
  return names
    .map(parseCommitted)
    .filter((f): f is CommittedFile => f !== undefined)
    .sort((a, b) => a.by - b.by || a.epoch - b.epoch || a.subtask - b.subtask);
}

/** The sink's output: the lines of its committed files, concatenated in commit order. */
export async function collectedLines(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const file of await committedFiles(dir)) {
    const text = await readFile(join(dir, COMMITTED, file.name), 'utf8');
    for (const line of text.split('\n')) if (line !== '') lines.push(line);
  }
  return lines;
}
