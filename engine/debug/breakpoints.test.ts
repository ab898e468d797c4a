// Breakpoints of a debug run: on an operator, on a condition over the record (in the user-code
// sandbox), on a state key; continue() stops at the next hit and shows it as a step, goes on from
// there, ends with undefined, and pause() stops it; problems are reported, not thrown.
import { describe, expect, it } from 'vitest';
import { debugSession, fn, generator, jobFolder, makeJob, sink, stepToEnd } from '../../test/debugJobs.js';
import type { Job } from '../graph/schema.js';
import type { StepView } from '../protocol/runProtocol.js';

const OWNERS_CODE = `function process(r, ctx) {
  const count = ctx.state.value("count");
  count.set((count.get() ?? 0) + 1);
  ctx.emit({ owner: r.owner, item: r.item, n: count.get() });
}`;

/** Items i0, i1, ... of owners o0..o9 (item i goes to owner o(i mod 10)). */
function ownersJob(count: number): Job {
  return makeJob(
    'owners',
    [
      generator('gen', 'function generate(i) { return { owner: "o" + (i % 10), item: "i" + i }; }', count),
      fn('tag', 'map', 'function map(r) { return { ...r, tagged: true }; }', 2),
      fn('owners', 'process', OWNERS_CODE, 3),
      sink('out', 'out.jsonl'),
    ],
    [
      { id: 'e1', from: 'gen', to: 'tag', partition: 'rebalance' },
      { id: 'e2', from: 'tag', to: 'owners', partition: 'hash', key: 'owner' },
      { id: 'e3', from: 'owners', to: 'out', partition: 'rebalance' },
    ],
  );
}

const item = (view: StepView) => (view.record as { item?: string } | undefined)?.item;

describe('breakpoints', () => {
  it('continue stops at the next step an operator breakpoint hits, shows it as that step, and goes on from there', async () => {
    const job = ownersJob(600);
    const all = await stepToEnd(await debugSession(job, await jobFolder()));
    const session = await debugSession(job, await jobFolder(), {
      breakpoints: [{ id: 'b1', type: 'operator', operator: 'owners' }],
    });
    expect(session.breakpointProblems).toEqual([]);
    const hits = all.filter((v) => v.operator === 'owners' && v.kind === 'record');
    for (const expected of hits.slice(0, 3)) {
      const hit = await session.continue();
      expect(hit).toEqual({ ...expected, breakpoint: 'b1' });
      expect(session.position).toBe(expected.seq);
    }
    // A step that hits says so too; a step back shows the hit as it was shown.
    const following = all[hits[2]!.seq]!;
    const hitsToo = following.operator === 'owners' && following.kind === 'record';
    expect(await session.step()).toEqual(hitsToo ? { ...following, breakpoint: 'b1' } : following);
    expect(await session.stepBack()).toEqual({ ...hits[2]!, breakpoint: 'b1' });
    await session.close();
  });

  it('on a condition over the record, evaluated in the sandbox: r.owner === "o7"', async () => {
    const job = ownersJob(600);
    const all = await stepToEnd(await debugSession(job, await jobFolder()));
    const session = await debugSession(job, await jobFolder(), {
      breakpoints: [{ id: 'seven', type: 'condition', operator: 'owners', expression: 'r.owner === "o7"' }],
    });
    const expected = all.filter(
      (v) => v.operator === 'owners' && v.kind === 'record' && item(v) !== undefined,
    );
    const sevens = expected.filter((v) => (v.record as { owner: string }).owner === 'o7');
    expect(sevens.length).toBe(60);
    for (const seven of sevens.slice(0, 5))
      expect(await session.continue()).toEqual({ ...seven, breakpoint: 'seven' });
    // Without an operator it hits at any operator the record passes: here the first after the source.
    const anywhere = await debugSession(job, await jobFolder(), {
      breakpoints: [
        { id: 'any', type: 'condition', expression: 'r.owner === "o7" && ctx.operator !== "gen"' },
      ],
    });
    const first = await anywhere.continue();
    expect(first).toMatchObject({ operator: 'tag', kind: 'record', record: { owner: 'o7', item: 'i7' } });
    await anywhere.close();
    await session.close();
  });

  it("on a state key: stops where that key's state is read or written", async () => {
    const job = ownersJob(300);
    const all = await stepToEnd(await debugSession(job, await jobFolder()));
    const session = await debugSession(job, await jobFolder(), {
      breakpoints: [{ id: 'k3', type: 'stateKey', key: 'o3' }],
    });
    const touching = all.filter((v) => v.state.some((a) => a.key === 'o3'));
    expect(touching.length).toBe(30);
    for (const expected of touching.slice(0, 4))
      expect(await session.continue()).toEqual({ ...expected, breakpoint: 'k3' });
    await session.close();
  });

  it('a condition that does not compile, or names an unknown operator, is reported and left out; one that throws (or reaches for process) does not hit', async () => {
    const job = ownersJob(100);
    const session = await debugSession(job, await jobFolder(), {
      breakpoints: [
        { id: 'bad', type: 'condition', expression: 'r.owner ===' },
        { id: 'nowhere', type: 'operator', operator: 'ownrs' },
        { id: 'throws', type: 'condition', operator: 'owners', expression: 'r.missing.field === 1' },
        { id: 'escape', type: 'condition', expression: 'process.exit(1)' },
      ],
    });
    expect(session.breakpointProblems).toEqual([
      {
        id: 'bad',
        message: expect.stringMatching(/^breakpoint "bad": the condition does not compile: .*Unexpected/),
      },
      { id: 'nowhere', message: 'breakpoint "nowhere": the job has no operator "ownrs"' },
    ]);
    // No breakpoint can hit: continue runs to the end.
    expect(await session.continue()).toBeUndefined();
    expect(session.ended).toBe(true);
    expect(session.setBreakpoints([{ id: 'ok', type: 'condition', expression: '(r.n ?? 0) > 1' }])).toEqual(
      [],
    );
    await session.close();
  });

  it('setBreakpoints replaces them while the run goes; with none, continue runs to the end', async () => {
    const job = ownersJob(200);
    const session = await debugSession(job, await jobFolder());
    expect(
      session.setBreakpoints([{ id: 'a', type: 'condition', operator: 'out', expression: 'r.n === 2' }]),
    ).toEqual([]);
    const hit = await session.continue();
    expect(hit).toMatchObject({ operator: 'out', breakpoint: 'a', record: { n: 2 } });
    session.setBreakpoints([]);
    expect(await session.continue()).toBeUndefined();
    expect(await session.step()).toBeUndefined();
    await session.close();
  });

  it('pause() stops a continue: it gives the event loop turns while it runs', async () => {
    const job = makeJob(
      'endless',
      [
        generator('gen', 'function generate(i) { return { i }; }', 1e12),
        fn('pass', 'map', 'function map(r) { return r; }'),
        sink('out', 'out.jsonl'),
      ],
      [
        { id: 'e1', from: 'gen', to: 'pass', partition: 'forward' },
        { id: 'e2', from: 'pass', to: 'out', partition: 'forward' },
      ],
    );
    const session = await debugSession(job, await jobFolder());
    const running = session.continue();
    await new Promise((resolve) => setTimeout(resolve, 100));
    session.pause();
    const last = await running;
    expect(last).toBeDefined();
    expect(last!.seq).toBe(session.position);
    expect(session.position).toBeGreaterThan(100);
    expect(session.ended).toBe(false);
    expect((await session.step())!.seq).toBe(last!.seq + 1);
    await session.close();
  });
});
