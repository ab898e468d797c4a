// Event time in a debug run (real LevelDB in a temp folder): a watermark reaching a subtask and
// each timer a firing fires are steps of their own; a timer's step shows its key, the state
// onTimer touched and what it emitted, and a record it emitted traces back to it; breakpoints
// stop at timer firings (of one key) and at watermarks; stepping back over watermarks and timers
// shows each step as it was, with the counters (timers held, watermarks) as they were, and
// stepping forward again does the same steps; the sink gets what `pipewright run` writes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  counters,
  debugSession,
  fn,
  forward,
  jobFolder,
  makeJob,
  plainRun,
  readLines,
  sink,
  stepToEnd,
} from '../../test/debugJobs.js';
import type { Job } from '../graph/schema.js';
import type { DebugSession } from './debugSession.js';

/** Counts a key's records; a timer 10 ms after each reports the count and starts it again. */
const TIMEOUTS_CODE = `function process(r, ctx) {
  const seen = ctx.state.value("seen");
  seen.set((seen.get() ?? 0) + 1);
  ctx.timers.eventTime(ctx.timestamp + 10);
}
function onTimer(timestamp, ctx) {
  const seen = ctx.state.value("seen");
  ctx.emit({ key: ctx.key, at: timestamp, seen: seen.get() ?? 0, domain: ctx.timeDomain });
  seen.clear();
}`;

/** Records of keys o0..o(keys-1), 4 ms apart, some a little out of order. */
function events(count: number, keys: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const t = i * 4 - (i % 3 === 2 ? 3 : 0);
    lines.push(JSON.stringify({ k: `o${i % keys}`, t }));
  }
  return `${lines.join('\n')}\n`;
}

function timeoutsJob(settings: Record<string, unknown> = {}): Job {
  return makeJob(
    'timeouts',
    [
      {
        id: 'in',
        kind: 'source.jsonl',
        parallelism: 1,
        params: { path: 'in.jsonl', timestampField: 't', maxOutOfOrdernessMs: 2 },
      },
      fn('timeouts', 'process', TIMEOUTS_CODE, 2),
      sink('out', 'out.jsonl'),
    ],
    [
      { id: 'e1', from: 'in', to: 'timeouts', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'timeouts', to: 'out', partition: 'rebalance' },
    ],
    settings,
  );
}

async function session(
  count: number,
  keys: number,
  options: Parameters<typeof debugSession>[2] = {},
): Promise<DebugSession> {
  return debugSession(
    timeoutsJob({ checkpointIntervalMs: 1000 }),
    await jobFolder({ 'in.jsonl': events(count, keys) }),
    options,
  );
}

describe('event time in the debugger', () => {
  it('a watermark that fires nothing is shown with the step after it, not as a step of its own', async () => {
    // in -> upper (a map) -> out: no operator has timers, so no watermark fires anything.
    const job = makeJob(
      'quiet',
      [
        {
          id: 'in',
          kind: 'source.jsonl',
          parallelism: 1,
          params: { path: 'in.jsonl', timestampField: 't', maxOutOfOrdernessMs: 2 },
        },
        fn('upper', 'map', 'function map(r) { return { ...r, k: r.k.toUpperCase() }; }'),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'e1', from: 'in', to: 'upper', partition: 'forward' },
        { id: 'e2', from: 'upper', to: 'out', partition: 'forward' },
      ],
    );
    const input = events(10, 2);
    const debug = await debugSession(job, await jobFolder({ 'in.jsonl': input }));
    const views = await stepToEnd(debug);
    expect(views.filter((v) => v.kind === 'watermark')).toEqual([]);
    // Each record is three steps (made, mapped, written), then each subtask's end of input.
    const records = views.filter((v) => v.kind !== 'end');
    expect(records.map((v) => `${v.operator}:${v.kind}`)).toEqual(
      Array.from({ length: 10 }, () => ['in:produce', 'upper:record', 'out:record']).flat(),
    );
    expect(views.map((v) => v.seq)).toEqual(views.map((_, k) => k + 1));
    // The watermarks came all the same: each with the step that followed it, where and how far.
    const passed = views.flatMap((v) => (v.watermarks ?? []).map((w) => ({ ...w, at: v.seq })));
    const times = input
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { t: number }).t);
    expect(passed.filter((w) => w.operator === 'upper').map((w) => w.watermark)).toEqual(
      times.map((_, k) => Math.max(...times.slice(0, k + 1)) - 2),
    );
    const first = passed.find((w) => w.operator === 'upper')!;
    expect(first).toMatchObject({
      subtask: 0,
      edge: { id: 'e1', fromSubtask: 0, feedback: false },
      watermark: -2,
      operatorWatermark: -2,
    });
    // Shown with the next step: the record the source made next reached "upper" after it.
    expect(views[first.at - 1]).toMatchObject({ operator: 'out', kind: 'record' });
    expect(passed.filter((w) => w.operator === 'out').length).toBeGreaterThan(0);

    // A watermark breakpoint still stops at every watermark: at the step that shows it.
    const stopping = await debugSession(job, await jobFolder({ 'in.jsonl': input }), {
      breakpoints: [{ id: 'w', type: 'watermark', operator: 'out' }],
    });
    const atOut = views.filter((v) => v.watermarks?.some((w) => w.operator === 'out'));
    expect(atOut.length).toBeGreaterThan(3);
    for (const expected of atOut.slice(0, 3)) {
      expect(await stopping.continue()).toEqual({ ...expected, breakpoint: 'w' });
    }
    await stopping.close();

    // Back over them and forward again: the same steps, done in place.
    for (let at = views.length - 1; at >= 1; at--) expect(await debug.stepBack()).toEqual(views[at - 1]);
    expect(await debug.stepBack()).toBeUndefined();
    expect(await stepToEnd(debug)).toEqual(views);
    expect(debug.replaysFromStart).toBe(0);
    await debug.close();
  });

  it('steps each watermark that reaches a subtask, and each timer a firing fires, with its state and emits', async () => {
    const debug = await session(30, 3);
    const views = await stepToEnd(debug);

    const watermarks = views.filter((v) => v.kind === 'watermark');
    // A watermark step fired something: the next step of its subtask is a timer.
    expect(watermarks.length).toBeGreaterThan(0);
    for (const view of watermarks) {
      const next = views.find(
        (v) => v.seq > view.seq && v.operator === view.operator && v.subtask === view.subtask,
      );
      expect(next?.kind, `after step ${view.seq}`).toBe('timer');
      expect(view).toMatchObject({ emitted: [], state: [] });
      expect(view.record).toBeUndefined();
    }
    // The others came with the step after them: the source's watermark after each record
    // (highest time so far − 2), at both subtasks of timeouts.
    const passed = views.flatMap((v) => v.watermarks ?? []);
    const first = [...watermarks, ...passed]
      .filter((w) => w.operator === 'timeouts' && w.subtask === 0)
      .sort((a, b) => a.watermark! - b.watermark!)[0]!;
    expect(first).toMatchObject({
      watermark: -2,
      operatorWatermark: -2,
      edge: { id: 'e1', fromSubtask: 0, feedback: false },
    });
    // Forwarded by timeouts once its timers fired: out takes it from each upstream subtask, and
    // its own watermark is the least of the two. Out has no timers: none is a step of its own.
    expect(watermarks.filter((v) => v.operator === 'out')).toEqual([]);
    const atOut = passed.filter((w) => w.operator === 'out');
    expect(atOut.length).toBeGreaterThan(0);
    for (const pass of atOut) {
      expect(pass.edge.id).toBe('e2');
      expect(pass.operatorWatermark ?? Number.NEGATIVE_INFINITY).toBeLessThanOrEqual(pass.watermark);
    }

    const timers = views.filter((v) => v.kind === 'timer');
    const outputs = views.filter((v) => v.operator === 'out' && v.kind === 'record');
    // Every record registers a timer 10 ms on (one per key and time): each fired once, and each
    // made one output.
    expect(timers.length).toBe(outputs.length);
    expect(timers.length).toBe(30);
    for (const timer of timers) {
      expect(timer.operator).toBe('timeouts');
      expect(timer.timer?.domain).toBe('eventTime');
      expect(timer.edge).toBeUndefined();
      const emitted = timer.emitted.map((e) => e.record as { key: string; at: number });
      expect(emitted).toEqual([expect.objectContaining({ key: timer.key, at: timer.timer!.timestamp })]);
      expect(timer.emitted[0]!.edges).toEqual(['e2']);
      // The state onTimer read and cleared: the timer's key's.
      expect(timer.state.map((a) => [a.state, a.op, a.key])).toEqual([
        ['seen', 'read', timer.key],
        ['seen', 'clear', timer.key],
      ]);
    }
    // Timers of one subtask fire in the order of their times.
    for (const subtask of [0, 1]) {
      const times = timers.filter((t) => t.subtask === subtask).map((t) => t.timer!.timestamp);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    }
    // A timer fires only once the watermark has passed it: its step comes after the step where
    // the watermark reached its subtask.
    const firstTimer = timers[0]!;
    const reached = watermarks.find(
      (v) =>
        v.operator === 'timeouts' &&
        v.subtask === firstTimer.subtask &&
        (v.operatorWatermark ?? Number.NEGATIVE_INFINITY) >= firstTimer.timer!.timestamp,
    )!;
    expect(reached.seq).toBeLessThan(firstTimer.seq);

    // An output of a timer traces back through the timer's step (and the state it read).
    const output = outputs[0]!;
    const trace = debug.trace(output.seq, 0);
    const hops = trace.path.map((hop) => hop.step);
    expect(hops).toEqual([timers[0]!.seq, output.seq]);
    expect(trace.path[0]!.stateFrom?.length).toBeGreaterThan(0);

    // The end of input fires every timer left.
    const ends = views.filter((v) => v.operator === 'timeouts' && v.kind === 'end');
    expect(ends.length).toBe(2);
    expect(timers.some((t) => t.seq > ends[0]!.seq)).toBe(true);
    await debug.close();
  });

  it('writes what `pipewright run` writes', async () => {
    const dir = await jobFolder({ 'in.jsonl': events(40, 4) });
    await plainRun(timeoutsJob(), dir);
    const expected = await readLines(join(dir, 'out.jsonl'));
    const debug = await debugSession(timeoutsJob(), dir, { previewSinks: false });
    await stepToEnd(debug);
    await debug.close();
    expect((await readLines(join(dir, 'out.jsonl'))).sort()).toEqual([...expected].sort());
  });

  it('stops at a timer firing (of one key) and at a watermark reaching an operator', async () => {
    const all = await stepToEnd(await session(30, 3));
    const debug = await session(30, 3, {
      breakpoints: [{ id: 'o1', type: 'timer', operator: 'timeouts', key: 'o1' }],
    });
    expect(debug.breakpointProblems).toEqual([]);
    const firings = all.filter((v) => v.kind === 'timer' && v.key === 'o1');
    expect(firings.length).toBe(10);
    for (const expected of firings.slice(0, 4)) {
      expect(await debug.continue()).toEqual({ ...expected, breakpoint: 'o1' });
    }
    // Stepping back onto a hit shows it as it was shown.
    await debug.step();
    expect(await debug.stepBack()).toEqual({ ...firings[3]!, breakpoint: 'o1' });
    await debug.close();

    const anyTimer = await session(30, 3, { breakpoints: [{ id: 't', type: 'timer' }] });
    expect(await anyTimer.continue()).toEqual({ ...all.find((v) => v.kind === 'timer')!, breakpoint: 't' });
    await anyTimer.close();

    const watermark = await session(30, 3, {
      breakpoints: [{ id: 'w', type: 'watermark', operator: 'out' }],
    });
    // Out fires nothing at a watermark: it stops at the steps that show them.
    const atOut = all.filter((v) => v.watermarks?.some((w) => w.operator === 'out'));
    expect(atOut.length).toBeGreaterThan(3);
    for (const expected of atOut.slice(0, 3)) {
      expect(await watermark.continue()).toEqual({ ...expected, breakpoint: 'w' });
    }
    await watermark.close();
  });

  it('steps back over watermarks and timer firings: the same steps and counters, and forward again the same', async () => {
    const debug = await session(40, 4, { checkpointEverySteps: 0 });
    const { views, after } = await forward(debug, 10_000);
    expect(await debug.step()).toBeUndefined();
    expect(views.filter((v) => v.kind === 'timer').length).toBe(40);
    // The counters show timers held and the watermark moving as the steps go.
    const timersHeld = (at: unknown) => (at as { timers?: number }[][])[1]!.map((s) => s.timers ?? 0);
    expect(new Set(after.map((a) => timersHeld(a).join())).size).toBeGreaterThan(3);
    for (let at = views.length - 1; at >= 1; at--) {
      const back = await debug.stepBack();
      expect(back, `step back to step ${at}`).toEqual(views[at - 1]);
      expect(debug.position).toBe(at);
      expect(counters(debug.metrics()), `counters at step ${at}`).toEqual(after[at - 1]);
    }
    expect(await debug.stepBack()).toBeUndefined();
    expect(debug.replaysFromStart).toBe(0);
    const again = await forward(debug, 10_000);
    expect(again.views).toEqual(views);
    expect(again.after).toEqual(after);
    await debug.close();
  });

  it('a timer step is the timer alone: what it emitted waits on the edge, the sink has not taken it yet', async () => {
    const debug = await session(30, 3);
    const { views, after } = await forward(debug, 10_000);
    const sinkIn = (at: unknown) =>
      (at as { recordsIn: number }[][])[2]!.reduce((sum, s) => sum + s.recordsIn, 0);
    const timerSteps = views.flatMap((v, i) => (v.kind === 'timer' && i > 0 ? [i] : []));
    expect(timerSteps.length).toBeGreaterThan(0);
    for (const i of timerSteps) expect(sinkIn(after[i]), `step ${views[i]!.seq}`).toBe(sinkIn(after[i - 1]));
    await debug.close();
  });

  it('with checkpoints taken while timers fire: each timer is one timer step, each snapshot one barrier step', async () => {
    // Checkpoints as often as can be: some come due while the end of input fires the timers left,
    // which fire before the snapshot is taken.
    const debug = await session(40, 8, { checkpointEverySteps: 1 });
    const { views } = await forward(debug, 100_000);
    const timers = views.filter((v) => v.kind === 'timer');
    expect(timers.length).toBe(40);
    expect(timers.every((t) => t.checkpointId === undefined && t.timer !== undefined)).toBe(true);
    const barriers = views.filter((v) => v.kind === 'barrier');
    expect(barriers.length).toBeGreaterThan(3);
    // One barrier step per checkpoint and channel (a snapshot where no barrier comes: no edge).
    const taken = barriers.map(
      (b) => `${b.operator}#${b.subtask}@${b.checkpointId} from ${b.edge?.id}#${b.edge?.fromSubtask}`,
    );
    expect(new Set(taken).size).toBe(taken.length);
    // Back over the end of input and the firing it starts, then forward again.
    const from = views.find((v) => v.operator === 'timeouts' && v.kind === 'end')!.seq - 1;
    expect(timers.filter((t) => t.seq > from).length).toBeGreaterThanOrEqual(3);
    for (let at = views.length - 1; at >= from; at--) {
      expect(await debug.stepBack()).toEqual(views[at - 1]);
    }
    const again = await forward(debug, 100_000);
    expect(again.views).toEqual(views.slice(from));
    await debug.close();
  });
});
