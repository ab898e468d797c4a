// The keyed job the Run on Flink… tests send to the cluster (the host's and the designer's in
// Chromium): `count` input lines, each key's (k = i % 97) count kept in value state at
// parallelism 2, checkpoints every 500 ms, every record written to out.jsonl.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CODE = `async function process(r, ctx) {
  const s = ctx.state.value("n");
  const n = ((await s.get()) ?? 0) + 1;
  await s.set(n);
  ctx.emit({ k: r.k, i: r.i, n });
}
`;

/** Writes in.jsonl and counting.job.json into `folder`; the job file's path and text. */
export function writeCountingJob(folder: string, count: number): { path: string; text: string } {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ k: `k${i % 97}`, i }));
  writeFileSync(join(folder, 'in.jsonl'), `${lines.join('\n')}\n`);
  const job = {
    format: 'pipewright.job/1',
    name: 'counting',
    settings: { checkpointIntervalMs: 500, maxParallelism: 128 },
    operators: [
      { id: 'in', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
      { id: 'count', kind: 'process', parallelism: 2, params: { code: CODE } },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'in', to: 'count', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'count', to: 'out', partition: 'rebalance' },
    ],
  };
  const text = `${JSON.stringify(job, null, 2)}\n`;
  const path = join(folder, 'counting.job.json');
  writeFileSync(path, text);
  return { path, text };
}
