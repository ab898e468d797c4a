// Checkpoints taken while records bounce round a loop (three parallel heads feeding each other)
// change nothing in the output. Each record bounces a fixed number of times and its output
// depends only on the record, so the expected output does not depend on delivery order.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bounceJob, expectedBounce } from './bounceJob.js';
import { describeRun, makeTempDir, readJsonl, removeTempDirs, runCli, writeJob } from './cliHarness.js';

const COUNT = 6000;

afterAll(removeTempDirs);

describe('checkpoints taken while records circulate in a loop', () => {
  it('gives the same output with checkpoints every 15 ms as without', async () => {
    const dir = await makeTempDir();
    const job = path.join(dir, 'bounce.job.json');
    await writeJob(
      job,
      bounceJob({
        count: COUNT,
        settings: { checkpointIntervalMs: 15, checkpointsRetained: 100 },
        ratePerSec: 6000,
      }),
    );
    const metrics = path.join(dir, 'metrics.jsonl');
    const run = await runCli(['run', job, '--quiet', '--metrics', metrics]);
    expect(run.code, describeRun(run)).toBe(0);
    const checkpoints = (await readJsonl<{ type: string; status: string }>(metrics)).filter(
      (l) => l.type === 'checkpoint',
    );
    expect(checkpoints.filter((c) => c.status === 'completed').length).toBeGreaterThan(3);
    const out = (await readJsonl(path.join(dir, 'out.jsonl'))).map((r) => JSON.stringify(r)).sort();
    expect(out).toEqual(expectedBounce(COUNT));
  });
});
