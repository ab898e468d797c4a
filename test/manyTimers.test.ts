// Timers are keyed state in the state backend, not heap objects: two million of them in the soak
// tier (100,000 in `npm test`), held at once by a run whose heap is capped at 96 MB, all fire at
// the end of input, each once, each key's in time order.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countText } from '../engine/graph/countText.js';
import { describeRun, makeTempDir, readJsonl, removeTempDirs, runCli, writeJob } from './cliHarness.js';
import { SOAK } from './tier.js';

afterAll(removeTempDirs);

const KEYS = SOAK ? 20_000 : 5_000;
const PER_KEY = SOAK ? 100 : 20;
const TIMERS = KEYS * PER_KEY;

// Record i is key i % KEYS at time floor(i / KEYS); each sets a timer at 1100 - its time, so
// every key's timers are set latest first and all wait, all at once, for the end of
// input. onTimer checks that its key's timers come in time order and reports each key once.
const job = {
  format: 'pipewright.job/1',
  name: 'many-timers',
  settings: { checkpointIntervalMs: 0, stateBackend: 'level' },
  operators: [
    {
      id: 'gen',
      kind: 'source.generator',
      params: {
        code: `function generate(i) { return { k: 'k' + (i % ${KEYS}), t: Math.floor(i / ${KEYS}) }; }`,
        count: TIMERS,
        timestampField: 't',
      },
    },
    {
      id: 'timers',
      kind: 'process',
      params: {
        code: [
          'function process(r, ctx) { ctx.timers.eventTime(1100 - r.t); }',
          'function onTimer(ts, ctx) {',
          "  const last = ctx.state.value('last');",
          "  const n = ctx.state.value('n');",
          '  if (last.get() !== undefined && last.get() >= ts) ctx.emit({ key: ctx.key, outOfOrder: ts });',
          '  last.set(ts);',
          '  const count = (n.get() ?? 0) + 1;',
          '  n.set(count);',
          `  if (count === ${PER_KEY}) ctx.emit({ key: ctx.key, fired: count, last: ts, watermark: String(ctx.watermark) });`,
          '}',
        ].join('\n'),
      },
    },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ],
  edges: [
    { id: 'in', from: 'gen', to: 'timers', partition: 'hash', key: 'k' },
    { id: 'to-out', from: 'timers', to: 'out', partition: 'forward' },
  ],
};

describe(`${countText(TIMERS)} timers`, () => {
  it('held at once under a 96 MB heap, all fire at the end of input, in time order per key', async () => {
    const dir = await makeTempDir();
    const file = path.join(dir, 'many-timers.job.json');
    await writeJob(file, job);
    const result = await runCli(['run', file, '--threads', '1', '--quiet'], {
      env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=96' },
      timeoutMs: 850_000,
    });
    expect(result.code, describeRun(result)).toBe(0);
    const out = await readJsonl<{ key: string; fired?: number; last?: number; watermark?: string }>(
      path.join(dir, 'out.jsonl'),
    );
    expect(out.filter((r) => r.fired === undefined)).toEqual([]);
    expect(out).toHaveLength(KEYS);
    expect(new Set(out.map((r) => r.key)).size).toBe(KEYS);
    for (const r of out) {
      expect(r).toEqual({ key: r.key, fired: PER_KEY, last: 1100, watermark: 'Infinity' });
    }
  });
});
