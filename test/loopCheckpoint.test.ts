// Checkpoints taken while records bounce round a loop (three parallel heads feeding each other)
// change nothing in the output. Each record bounces a fixed number of times and its output
// depends only on the record, so the expected output does not depend on delivery order.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, makeTempDir, readJsonl, removeTempDirs, runCli, writeJob } from './cliHarness.js';

const COUNT = 6000;

function bounceJob(checkpointIntervalMs: number, ratePerSec: number) {
  return {
    format: 'pipewright.job/1',
    name: 'bounce',
    settings: { checkpointIntervalMs, checkpointsRetained: 100 },
    operators: [
      {
        id: 'gen',
        kind: 'source.generator',
        params: {
          code: 'function generate(i) { return { id: i, k: i % 97, hops: 5 + (i % 11), path: 0 }; }',
          count: COUNT,
          ratePerSec,
        },
      },
      {
        id: 'bounce',
        kind: 'process',
        parallelism: 3,
        params: {
          code: `function process(r, ctx) {
  const seen = ctx.state.value('seen');
  seen.set((seen.get() ?? 0) + 1);
  if (r.hops > 0) ctx.emit({ id: r.id, k: (r.k * 31 + 7) % 97, hops: r.hops - 1, path: r.path * 3 + r.k }, 'again');
  else ctx.emit({ id: r.id, path: r.path });
}`,
        },
      },
      { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'in', from: 'gen', to: 'bounce', partition: 'hash', key: 'k' },
      {
        id: 'again',
        from: 'bounce',
        fromPort: 'again',
        to: 'bounce',
        partition: 'hash',
        key: 'k',
        feedback: true,
      },
      { id: 'done', from: 'bounce', to: 'out', partition: 'rebalance' },
    ],
  };
}

function expected(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    let k = i % 97;
    let path = 0;
    for (let hops = 5 + (i % 11); hops > 0; hops--) {
      path = path * 3 + k;
      k = (k * 31 + 7) % 97;
    }
    lines.push(JSON.stringify({ id: i, path }));
  }
  return lines.sort();
}

afterAll(removeTempDirs);

describe('checkpoints taken while records circulate in a loop', () => {
  it('gives the same output with checkpoints every 15 ms as without', async () => {
    const dir = await makeTempDir();
    const job = path.join(dir, 'bounce.job.json');
    await writeJob(job, bounceJob(15, 6000));
    const metrics = path.join(dir, 'metrics.jsonl');
    const run = await runCli(['run', job, '--quiet', '--metrics', metrics]);
    expect(run.code, describeRun(run)).toBe(0);
    const checkpoints = (await readJsonl<{ type: string; status: string }>(metrics)).filter(
      (l) => l.type === 'checkpoint',
    );
    expect(checkpoints.filter((c) => c.status === 'completed').length).toBeGreaterThan(3);
    const out = (await readJsonl(path.join(dir, 'out.jsonl'))).map((r) => JSON.stringify(r)).sort();
    expect(out).toEqual(expected());
  });
});
