// One job for tests of what a process function does to a run (stuck calls, loose promises):
// in.jsonl ({"id": 1}, {"id": 2}, ...) -> p1 (process, the code under test) -> out.jsonl. At a
// parallelism above 1, p1's input is dealt round robin: record n goes to subtask (n - 1) % p.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The STOP bound of those tests: the 2 s, plus room for a loaded machine. */
export const STOP_BOUND_MS = 2000 + 2000;

export function processJobText(
  code: string,
  settings: Record<string, unknown> = {},
  parallelism = 1,
): string {
  const partition = parallelism > 1 ? 'rebalance' : 'forward';
  return JSON.stringify({
    format: 'pipewright.job/1',
    name: 'stuck',
    settings: { checkpointIntervalMs: 0, ...settings },
    operators: [
      { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
      { id: 'p1', kind: 'process', parallelism, params: { code } },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'p1', partition },
      { id: 'e2', from: 'p1', to: 'out', partition },
    ],
  });
}

/** Writes the job (job.json) and `records` input records into `dir`; returns the job file and its text. */
export async function writeProcessJob(
  dir: string,
  code: string,
  records: number,
  settings?: Record<string, unknown>,
  parallelism?: number,
): Promise<{ path: string; text: string }> {
  const lines = Array.from({ length: records }, (_, i) => JSON.stringify({ id: i + 1 }));
  await writeFile(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  const path = join(dir, 'job.json');
  const text = processJobText(code, settings, parallelism);
  await writeFile(path, text);
  return { path, text };
}
