// Event time in the engine, on both executors: ctx.input tells two inputs apart, processing-time
// timers fire while the job runs (not only at its end), a watermark is the least of its inputs,
// and the end of input fires every timer (a timer beyond setTimeout’s range too).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXECUTORS, runForOutput } from './executors.js';
import { fn, makeJob, sink } from './jobBuilders.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'event-time-'));
  dirs.push(dir);
  return dir;
}

const timed = (id: string, code: string, count: number, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'source.generator',
  params: { code, count, timestampField: 't', ...extra },
});

describe.each(EXECUTORS)('event time (%s)', (executor) => {
  it('ctx.input names the edge a record came on, and the operator watermark is the least of its inputs', async () => {
    const dir = await tempDir();
    // "fast" runs 1000 ms ahead of "slow": the join's watermark follows the slow one.
    const job = makeJob(
      'two-inputs',
      [
        timed('fast', 'function generate(i) { return { k: "a", t: 1000 + i * 10, from: "fast" }; }', 50),
        timed('slow', 'function generate(i) { return { k: "a", t: i * 10, from: "slow" }; }', 50),
        fn(
          'join',
          'process',
          [
            'function process(r, ctx) {',
            '  if (ctx.input === "from-slow" && r.t === 400) {',
            '    ctx.emit({ input: ctx.input, from: r.from, watermark: String(ctx.watermark), same: ctx.watermark === ctx.timers.currentWatermark() });',
            '  }',
            '  if (r.from !== ctx.input.slice(5)) throw new Error("wrong input " + ctx.input);',
            '}',
          ].join('\n'),
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'from-fast', from: 'fast', to: 'join', partition: 'hash', key: 'k' },
        { id: 'from-slow', from: 'slow', to: 'join', partition: 'hash', key: 'k' },
        { id: 'to-out', from: 'join', to: 'out', partition: 'forward' },
      ],
    );
    const { out, error } = await runForOutput(executor, job, dir);
    expect(error).toBeUndefined();
    expect(out).toHaveLength(1);
    const [row] = out as { input: string; from: string; watermark: string; same: boolean }[];
    expect(row!.input).toBe('from-slow');
    expect(row!.same).toBe(true);
    // The slow input's watermark before this record was 390 at most (-Infinity while the fast
    // input had brought none yet); never the fast one's, which is past 1000 once it has any.
    expect(Number(row!.watermark)).toBeLessThanOrEqual(390);
  });

  it('a loop carries no watermark: the loop head event time follows its regular input, its timers fire', async () => {
    const dir = await tempDir();
    // Each record goes once round the loop (hop 1), then sets a timer 5 ms after its time; the
    // head's watermark comes from the source alone, so timers fire as the source's time goes on.
    const job = makeJob(
      'loop-time',
      [
        // A record every 10 ms: each comes back round the loop long before the next is made.
        timed('gen', 'function generate(i) { return { k: "k" + (i % 3), t: i * 10, hop: 0 }; }', 30, {
          ratePerSec: 100,
        }),
        fn(
          'head',
          'process',
          [
            'function process(r, ctx) {',
            '  if (r.hop === 0) { ctx.emit({ ...r, hop: 1 }, "loop"); return; }',
            '  ctx.timers.eventTime(r.t + 5);',
            '}',
            'function onTimer(ts, ctx) { ctx.emit({ key: ctx.key, ts, watermark: String(ctx.watermark) }); }',
          ].join('\n'),
          2,
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'head', partition: 'hash', key: 'k' },
        {
          id: 'back',
          from: 'head',
          fromPort: 'loop',
          to: 'head',
          partition: 'hash',
          key: 'k',
          feedback: true,
        },
        { id: 'to-out', from: 'head', to: 'out', partition: 'rebalance' },
      ],
    );
    const { out, error } = await runForOutput(executor, job, dir);
    expect(error).toBeUndefined();
    const rows = out as { key: string; ts: number; watermark: string }[];
    expect(rows.map((r) => r.ts).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 30 }, (_, i) => i * 10 + 5),
    );
    // Most fired on the source's watermarks while it ran, not all at the end.
    expect(rows.filter((r) => r.watermark !== 'Infinity').length).toBeGreaterThan(20);
  });

  it('an idle source subtask stops holding the watermark back once its idle timeout has passed', async () => {
    const dir = await tempDir();
    // Subtask 1 of the source makes only nulls (odd i): it emits nothing, and goes idle after
    // 100 ms; without that, the timers could fire only at the end of input.
    const job = makeJob(
      'idle-source',
      [
        {
          id: 'gen',
          kind: 'source.generator',
          parallelism: 2,
          params: {
            code: 'function generate(i) { return i % 2 === 1 ? null : { k: "k" + (i % 3), t: i * 10 }; }',
            count: 200,
            ratePerSec: 200,
            timestampField: 't',
            idleTimeoutMs: 100,
          },
        },
        fn(
          'p',
          'process',
          [
            'function process(r, ctx) { ctx.timers.eventTime(r.t + 5); }',
            'function onTimer(ts, ctx) { ctx.emit({ ts, watermark: String(ctx.watermark) }); }',
          ].join('\n'),
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'p', partition: 'hash', key: 'k' },
        { id: 'to-out', from: 'p', to: 'out', partition: 'forward' },
      ],
    );
    const { out, error } = await runForOutput(executor, job, dir);
    expect(error).toBeUndefined();
    const rows = out as { ts: number; watermark: string }[];
    expect(rows).toHaveLength(100);
    // Without idleness no timer could fire before the end of input (the idle subtask sends no
    // watermark). How many fire while it runs depends on how the ~1 s of paced input was spread
    // over the run: on a loaded machine 7 of the 100 once, most of them on an idle one.
    expect(rows.filter((r) => r.watermark !== 'Infinity').length).toBeGreaterThan(0);
  });

  it('fires processing-time timers while the job runs, and every timer left at its end', async () => {
    const dir = await tempDir();
    // 100 records over ~1 s; each key's first record sets a timer 20 ms ahead, which fires
    // long before the input ends; an event-time timer far ahead fires only at the end.
    const job = makeJob(
      'processing-timers',
      [
        {
          id: 'gen',
          kind: 'source.generator',
          params: {
            code: 'function generate(i) { return { k: "k" + (i % 2), i }; }',
            count: 100,
            ratePerSec: 100,
          },
        },
        fn(
          'p',
          'process',
          [
            'function process(r, ctx) {',
            "  const seen = ctx.state.value('seen');",
            '  const n = (seen.get() ?? 0) + 1;',
            '  seen.set(n);',
            '  if (n === 1) ctx.timers.processingTime(ctx.timers.currentProcessingTime() + 20);',
            '  if (n === 1) ctx.timers.eventTime(1e12);',
            '}',
            'function onTimer(ts, ctx) {',
            "  ctx.emit({ key: ctx.key, domain: ctx.timeDomain, seenThen: ctx.state.value('seen').get() });",
            '}',
          ].join('\n'),
        ),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'in', from: 'gen', to: 'p', partition: 'hash', key: 'k' },
        { id: 'to-out', from: 'p', to: 'out', partition: 'forward' },
      ],
    );
    const { out, error } = await runForOutput(executor, job, dir);
    expect(error).toBeUndefined();
    const rows = out as { key: string; domain: string; seenThen: number }[];
    const processing = rows.filter((r) => r.domain === 'processingTime');
    const event = rows.filter((r) => r.domain === 'eventTime');
    expect(processing.map((r) => r.key).sort()).toEqual(['k0', 'k1']);
    expect(event.map((r) => r.key).sort()).toEqual(['k0', 'k1']);
    // Fired while records were still coming: each key had seen far fewer than its 50.
    for (const r of processing) expect(r.seenThen).toBeLessThan(40);
    for (const r of event) expect(r.seenThen).toBe(50);
  });
});

// On this thread only: a worker thread's warnings do not reach this process's 'warning' event.
describe('a processing-time timer beyond setTimeout’s range', () => {
  it('waits without waking the subtask every millisecond, and fires at the end', async () => {
    const dir = await tempDir();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      // 50 records over ~0.5 s; the first sets a timer 30 days ahead (setTimeout's limit is
      // ~24.8 days: a longer delay used to run after 1 ms, with a warning, again and again).
      const job = makeJob(
        'far-timer',
        [
          {
            id: 'gen',
            kind: 'source.generator',
            params: { code: 'function generate(i) { return { k: "k", i }; }', count: 50, ratePerSec: 100 },
          },
          fn(
            'p',
            'process',
            [
              'function process(r, ctx) {',
              "  const seen = ctx.state.value('seen');",
              '  const n = (seen.get() ?? 0) + 1;',
              '  seen.set(n);',
              '  if (n === 1) ctx.timers.processingTime(ctx.timers.currentProcessingTime() + 30 * 86400000);',
              '}',
              'function onTimer(ts, ctx) {',
              "  ctx.emit({ domain: ctx.timeDomain, seenThen: ctx.state.value('seen').get() });",
              '}',
            ].join('\n'),
          ),
          sink('out', 'out.jsonl'),
        ],
        [
          { id: 'in', from: 'gen', to: 'p', partition: 'hash', key: 'k' },
          { id: 'to-out', from: 'p', to: 'out', partition: 'forward' },
        ],
      );
      const { out, error } = await runForOutput('deterministic', job, dir);
      expect(error).toBeUndefined();
      // Fired by the end of input, not before: it had seen every record.
      expect(out).toEqual([{ domain: 'processingTime', seenThen: 50 }]);
      expect(warnings.filter((name) => name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
