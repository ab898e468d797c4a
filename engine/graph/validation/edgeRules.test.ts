import { describe, expect, it } from 'vitest';
import { edge, expectNames, job, mapOp, only, processOp, sink, source } from './jobFixtures.js';
import { validateJob } from './validateJob.js';

describe('edge rules', () => {
  it('edge from an unknown operator', () => {
    const { problems } = validateJob(job([sink('o')], [edge('e1', 'nowhere', 'o')]));
    const problem = only(problems, 'unknown-operator');
    expect(problem).toMatchObject({ path: '$.edges[0].from', ids: ['e1', 'nowhere'] });
    expectNames(problem, 'e1', 'nowhere');
  });

  it('edge to an unknown operator, with a suggestion', () => {
    const { problems } = validateJob(
      job(
        [source('events'), processOp('owners')],
        [edge('e1', 'events', 'owners'), edge('e2', 'events', 'ownrs')],
      ),
    );
    expect(only(problems, 'unknown-operator')).toEqual({
      code: 'unknown-operator',
      message: 'edge "e2" goes to unknown operator "ownrs" (did you mean "owners"?)',
      path: '$.edges[1].to',
      ids: ['e2', 'ownrs'],
    });
  });

  it('unknown port of a kind without user code', () => {
    const { problems } = validateJob(
      job([source('s'), sink('o')], [edge('e1', 's', 'o', { fromPort: 'late' })]),
    );
    const problem = only(problems, 'unknown-port');
    expect(problem).toMatchObject({ path: '$.edges[0].fromPort', ids: ['e1', 's'] });
    expectNames(problem, 'e1', 's', 'late');
  });

  it('unknown port: user code never emits to it', () => {
    const code = 'function process(r, ctx) { ctx.emit(r, "transfer"); }';
    const { problems } = validateJob(
      job(
        [source('s'), processOp('p', code), sink('o')],
        [edge('e1', 's', 'p'), edge('e2', 'p', 'o', { fromPort: 'transfr' })],
      ),
    );
    const problem = only(problems, 'unknown-port');
    expect(problem).toMatchObject({ path: '$.edges[1].fromPort', ids: ['e2', 'p'] });
    expectNames(problem, 'e2', 'p', 'transfr');
    expect(problem.message).toContain('did you mean "transfer"?');
  });

  it('ports named by user code are accepted', () => {
    const code = "function flatMap(r, ctx) { if (r.bad) ctx.emit(r, 'errors'); return [r]; }";
    const ops = [source('s'), { id: 'f', kind: 'flatMap', params: { code } }, sink('o'), sink('errs')];
    const edges = [
      edge('e1', 's', 'f'),
      edge('e2', 'f', 'o'),
      edge('e3', 'f', 'errs', { fromPort: 'errors' }),
    ];
    expect(validateJob(job(ops, edges)).problems).toEqual([]);
  });

  it('any port is accepted when the code names a port with an expression', () => {
    const code = 'function process(r, ctx) { ctx.emit(r, r.kind); }';
    const ops = [source('s'), processOp('p', code), sink('o')];
    const edges = [edge('e1', 's', 'p'), edge('e2', 'p', 'o', { fromPort: 'anything' })];
    expect(validateJob(job(ops, edges)).problems).toEqual([]);
  });

  it('a window may use its late port, and only the ports it has', () => {
    const window = {
      id: 'w',
      kind: 'window',
      params: { type: 'tumbling', sizeMs: 1000, aggregate: 'count' },
    };
    const ops = [source('s'), window, sink('o')];
    const hash = edge('e1', 's', 'w', { partition: 'hash', key: 'k' });
    expect(validateJob(job(ops, [hash, edge('e2', 'w', 'o', { fromPort: 'late' })])).problems).toEqual([]);
    const problem = only(
      validateJob(job(ops, [hash, edge('e2', 'w', 'o', { fromPort: 'lat' })])).problems,
      'unknown-port',
    );
    expect(problem.message).toBe(
      'edge "e2" comes from port "lat" of operator "w", but it has no such output (its outputs: "out", "late"); did you mean "late"?',
    );
  });

  it('a sink has no outputs', () => {
    const { problems } = validateJob(job([sink('out'), mapOp('m')], [edge('e3', 'out', 'm')]));
    const problem = only(problems, 'edge-from-sink');
    expect(problem).toMatchObject({ path: '$.edges[0].from', ids: ['e3', 'out'] });
    expectNames(problem, 'e3', 'out');
  });

  it('a source has no inputs', () => {
    const { problems } = validateJob(job([mapOp('m'), source('events')], [edge('e1', 'm', 'events')]));
    const problem = only(problems, 'edge-to-source');
    expect(problem).toMatchObject({ path: '$.edges[0].to', ids: ['e1', 'events'] });
    expectNames(problem, 'e1', 'events');
  });

  it('a hash edge needs a key', () => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m')], [edge('e1', 's', 'm', { partition: 'hash' })]),
    );
    const problem = only(problems, 'missing-key');
    expect(problem).toMatchObject({ path: '$.edges[0].key', ids: ['e1'] });
    expectNames(problem, 'e1');
  });

  it.each(['forward', 'rebalance', 'broadcast'])('a %s edge takes no key', (partition) => {
    const { problems } = validateJob(
      job([source('s'), mapOp('m')], [edge('e1', 's', 'm', { partition, key: 'k' })]),
    );
    const problem = only(problems, 'unexpected-key');
    expect(problem).toMatchObject({ path: '$.edges[0].key', ids: ['e1'] });
    expectNames(problem, 'e1');
    expect(problem.message).toContain(partition);
  });

  it('forward between different parallelisms names both operators and parallelisms', () => {
    const { problems } = validateJob(
      job(
        [source('events'), processOp('owners', undefined, { parallelism: 4 }), sink('out')],
        [edge('e1', 'events', 'owners'), edge('e3', 'owners', 'out', { partition: 'forward' })],
      ),
    );
    const problem = only(problems, 'forward-parallelism');
    expect(problem).toMatchObject({ path: '$.edges[1].partition', ids: ['e3', 'owners', 'out'] });
    expectNames(problem, 'e3', 'owners', 'out');
    expect(problem.message).toMatch(/"owners" has parallelism 4 and operator "out" has parallelism 1/);
  });

  it('forward with equal parallelisms is fine, default parallelism included', () => {
    const { problems } = validateJob(
      job([source('s', { parallelism: 1 }), sink('o')], [edge('e1', 's', 'o', { partition: 'forward' })]),
    );
    expect(problems).toEqual([]);
  });

  it('a feedback edge must be hash-partitioned', () => {
    const { problems } = validateJob(
      job(
        [source('s'), processOp('p')],
        [edge('e1', 's', 'p', { partition: 'hash', key: 'k' }), edge('e2', 'p', 'p', { feedback: true })],
      ),
    );
    expect(problems.map((p) => p.code)).toEqual(['feedback-not-hash']);
    expect(problems[0]).toMatchObject({ path: '$.edges[1].partition', ids: ['e2'] });
    expectNames(problems[0]!, 'e2');
  });

  it('a window needs hash-partitioned inputs', () => {
    const window = { id: 'w1', kind: 'window', params: { type: 'tumbling', sizeMs: 10, aggregate: 'count' } };
    const { problems } = validateJob(job([source('s'), window], [edge('e1', 's', 'w1')]));
    const problem = only(problems, 'keyed-input');
    expect(problem).toMatchObject({ path: '$.edges[0].partition', ids: ['e1', 'w1'] });
    expectNames(problem, 'e1', 'w1');
  });

  it.each([
    ['rebalance', {}],
    ['forward', {}],
    ['broadcast', {}],
    ['hash', { key: 'from' }],
  ])(
    'a transaction takes a %s input: it routes each record to the rows it names itself',
    (partition, extra) => {
      const tx = {
        id: 'tx',
        kind: 'transaction',
        params: {
          tables: ['accounts'],
          code: 'function keys(r) { return []; }\nfunction transact(r, tx) {}',
        },
      };
      const { problems } = validateJob(
        job([source('s'), tx], [edge('e1', 's', 'tx', { partition, ...extra })]),
      );
      expect(problems).toEqual([]);
    },
  );

  it('a process that uses state needs every input hash-partitioned, naming the one that is not', () => {
    const code = "function process(r, ctx) { const seen = ctx.state.value('seen'); seen.set(true); }";
    const { problems } = validateJob(
      job(
        [source('a'), source('b'), processOp('owners', code)],
        [
          edge('e1', 'a', 'owners', { partition: 'hash', key: 'k' }),
          edge('e2', 'b', 'owners', { partition: 'forward' }),
        ],
      ),
    );
    const problem = only(problems, 'keyed-input');
    expect(problem).toMatchObject({ path: '$.edges[1].partition', ids: ['e2', 'owners'] });
    expectNames(problem, 'e2', 'owners');
    expect(problem.message).not.toContain('"e1"');
  });

  it.each([
    'function process(r, ctx) { ctx.timers.eventTime(r.ts + 1000); }',
    'function process(r, ctx) { ctx.timers.processingTime(5); }',
    'function process(r, ctx) { ctx.timers.deleteEventTime(r.ts); }',
    'function process(r, ctx) { const t = ctx.timers; t.eventTime(r.ts); }',
    'function process(r, ctx) { const { timers } = ctx; timers.eventTime(r.ts); }',
    'function process(r, { emit, timers }) { timers.eventTime(r.ts); }',
    "function process(r, ctx) { ctx['timers'].eventTime(r.ts); }",
    'function process(r, ctx) { ctx.timers?.eventTime(r.ts); }',
    // Timers are keyed: an onTimer can only be for timers of keyed input.
    'function process(r, ctx) {}\nfunction onTimer(ts, ctx) { ctx.emit({ ts }); }',
  ])('a process that uses timers needs hash-partitioned inputs: %s', (code) => {
    const { problems } = validateJob(job([source('s'), processOp('p', code)], [edge('e1', 's', 'p')]));
    const problem = only(problems, 'keyed-input');
    expect(problem.ids).toEqual(['e1', 'p']);
    expect(problem.message).toBe(
      'operator "p" uses keyed state or timers, so its input edge "e1" must be hash-partitioned (it is rebalance)',
    );
  });

  it('a process that uses timers on a hash input is valid', () => {
    const code = 'function process(r, ctx) { ctx.timers.eventTime(r.ts); }\nfunction onTimer(ts, ctx) {}';
    const { problems } = validateJob(
      job([source('s'), processOp('p', code)], [edge('e1', 's', 'p', { partition: 'hash', key: 'k' })]),
    );
    expect(problems).toEqual([]);
  });

  it('a stateless process may take any input', () => {
    const { problems } = validateJob(
      job([source('s'), processOp('p')], [edge('e1', 's', 'p', { partition: 'broadcast' })]),
    );
    expect(problems).toEqual([]);
  });
});
