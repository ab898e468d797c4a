// The CLI's last line, through the real CLI: "N records from the sources" counts the records the
// sources read, once each, however many edges leave a source (a record sent on three edges is
// still one record read).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  type JobDocument,
  makeTempDir,
  readJsonl,
  removeTempDirs,
  runCli,
  writeJob,
  writeJsonl,
} from './cliHarness.js';

afterAll(removeTempDirs);

/** events (3 records) -> a, b, c: three edges leave the one source. */
function fanOutJob(): JobDocument {
  const sink = (id: string) => ({ id, kind: 'sink.jsonl', parallelism: 1, params: { path: `${id}.jsonl` } });
  return {
    format: 'pipewright.job/1',
    name: 'fan-out',
    operators: [
      { id: 'events', kind: 'source.jsonl', parallelism: 1, params: { path: 'input.jsonl' } },
      {
        id: 'more',
        kind: 'source.generator',
        parallelism: 2,
        params: { count: 5, code: 'function generate(i) { return { n: 100 + i }; }' },
      },
      sink('a'),
      sink('b'),
      sink('c'),
    ],
    edges: [
      { id: 'e1', from: 'events', to: 'a', partition: 'forward' },
      { id: 'e2', from: 'events', to: 'b', partition: 'forward' },
      { id: 'e3', from: 'events', to: 'c', partition: 'rebalance' },
      { id: 'e4', from: 'more', to: 'a', partition: 'rebalance' },
      { id: 'e5', from: 'more', to: 'b', partition: 'broadcast' },
    ],
  };
}

describe('the done line', () => {
  it('counts each record a source read once, not once per edge it went out on', async () => {
    const dir = await makeTempDir('pipewright-done-line-');
    await writeJob(path.join(dir, 'job.json'), fanOutJob());
    await writeJsonl(path.join(dir, 'input.jsonl'), [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const result = await runCli(['run', 'job.json'], { cwd: dir });
    expect(result.code, describeRun(result)).toBe(0);
    // The records did go out on every edge: 3 + 5 into a, 3 + 5 × 1 into b (broadcast to its one subtask), 3 into c.
    expect(await readJsonl(path.join(dir, 'a.jsonl'))).toHaveLength(8);
    expect(await readJsonl(path.join(dir, 'b.jsonl'))).toHaveLength(8);
    expect(await readJsonl(path.join(dir, 'c.jsonl'))).toHaveLength(3);
    const last = result.stdout.trimEnd().split('\n').at(-1);
    expect(last, describeRun(result)).toMatch(/^done: job "fan-out", 8 records from the sources in /);
  });
});
