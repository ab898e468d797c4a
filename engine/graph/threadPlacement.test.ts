import { describe, expect, it } from 'vitest';
import { planJob } from './plan.js';
import { placeSubtasks, type ThreadPlacement, threadsFor } from './threadPlacement.js';
import { edge, job, mapOp, processOp, sink, source } from './validation/jobFixtures.js';
import { validateJob } from './validation/validateJob.js';

function planOf(operators: unknown[], edges: unknown[]) {
  const { job: valid, problems } = validateJob(job(operators, edges));
  expect(problems).toEqual([]);
  return planJob(valid!);
}

/** The placement as a plain object, operator id to the thread of each subtask. */
function threadsOf(placement: ThreadPlacement): Record<string, readonly number[]> {
  return Object.fromEntries(placement.byOperator);
}

const p = (parallelism: number) => ({ parallelism });

describe('placeSubtasks', () => {
  it('deals the subtasks of a keyed job round-robin, one counter across operators', () => {
    // The example of the design: each thread gets a share of the source/sink work and of the keyed work.
    const plan = planOf(
      [source('src'), processOp('acc', undefined, p(2)), sink('out')],
      [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
    );
    const placement = placeSubtasks(plan, 2);
    expect(placement.threads).toBe(2);
    expect(threadsOf(placement)).toEqual({ src: [0], acc: [1, 0], out: [1] });
  });

  it('keeps each subtask of a forward chain on one thread, at every length of the chain', () => {
    const plan = planOf(
      [
        source('src', p(2)),
        mapOp('m1', p(2)),
        mapOp('m2', p(2)),
        processOp('acc', undefined, p(2)),
        mapOp('fin', p(2)),
        sink('out'),
      ],
      [
        edge('e1', 'src', 'm1', { partition: 'forward' }),
        edge('e2', 'm1', 'm2', { partition: 'forward' }),
        edge('e3', 'm2', 'acc', { partition: 'hash', key: 'k' }),
        edge('e4', 'acc', 'fin', { partition: 'forward' }),
        edge('e5', 'fin', 'out'),
      ],
    );
    const placement = placeSubtasks(plan, 5);
    // Two chains of two subtasks each, and the sink: five groups, five threads.
    expect(placement.threads).toBe(5);
    expect(threadsOf(placement)).toEqual({
      src: [0, 1],
      m1: [0, 1],
      m2: [0, 1],
      acc: [2, 3],
      fin: [2, 3],
      out: [4],
    });
    expect(threadsOf(placeSubtasks(plan, 2))).toEqual({
      src: [0, 1],
      m1: [0, 1],
      m2: [0, 1],
      acc: [0, 1],
      fin: [0, 1],
      out: [0],
    });
  });

  it('chains a forward edge into an operator with other inputs too (a join of a chain and a shuffle)', () => {
    const plan = planOf(
      [source('a', p(2)), source('b'), mapOp('m', p(2)), sink('out')],
      [
        edge('e1', 'a', 'm', { partition: 'forward' }),
        edge('e2', 'b', 'm', { partition: 'rebalance' }),
        edge('e3', 'm', 'out', { partition: 'rebalance' }),
      ],
    );
    const placement = placeSubtasks(plan, 4);
    expect(placement.threads).toBe(4);
    expect(threadsOf(placement)).toEqual({ a: [0, 1], b: [2], m: [0, 1], out: [3] });
  });

  it('puts a parallelism-1 job on one thread when it is one forward chain', () => {
    const plan = planOf(
      [source('src'), mapOp('m'), processOp('last')],
      [edge('e1', 'src', 'm', { partition: 'forward' }), edge('e2', 'm', 'last', { partition: 'forward' })],
    );
    const placement = placeSubtasks(plan, 8);
    expect(placement.threads).toBe(1);
    expect(threadsOf(placement)).toEqual({ src: [0], m: [0], last: [0] });
  });

  it('spreads a parallelism-1 job without forward edges over a thread per operator', () => {
    const plan = planOf(
      [source('src'), mapOp('m'), sink('out')],
      [edge('e1', 'src', 'm'), edge('e2', 'm', 'out', { partition: 'hash', key: 'k' })],
    );
    const placement = placeSubtasks(plan, 8);
    expect(placement.threads).toBe(3);
    expect(threadsOf(placement)).toEqual({ src: [0], m: [1], out: [2] });
  });

  it('never has an empty thread: more threads than groups gives one thread per group', () => {
    const plan = planOf(
      [source('src'), processOp('acc', undefined, p(3)), sink('out')],
      [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
    );
    const placement = placeSubtasks(plan, 64);
    expect(placement.threads).toBe(5);
    expect(threadsOf(placement)).toEqual({ src: [0], acc: [1, 2, 3], out: [4] });
    const used = new Set([...placement.byOperator.values()].flat());
    expect([...used].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('puts everything on thread 0 with one thread', () => {
    const plan = planOf(
      [source('src', p(2)), processOp('acc', undefined, p(4)), sink('out')],
      [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
    );
    const placement = placeSubtasks(plan, 1);
    expect(placement.threads).toBe(1);
    expect(threadsOf(placement)).toEqual({ src: [0, 0], acc: [0, 0, 0, 0], out: [0] });
  });

  it('wraps round the threads when there are more groups than threads', () => {
    const plan = planOf(
      [source('src', p(2)), processOp('acc', undefined, p(3)), sink('out', p(2))],
      [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
    );
    const placement = placeSubtasks(plan, 3);
    expect(placement.threads).toBe(3);
    // Groups in order: src#0 src#1 acc#0 acc#1 acc#2 out (a sink's subtasks are one group).
    expect(threadsOf(placement)).toEqual({ src: [0, 1], acc: [2, 0, 1], out: [2, 2] });
  });

  /** A process that sends each record on, and back round its loop through `port`. */
  const looping = (id: string, port: string, parallelism: number) =>
    processOp(
      id,
      `function process(record, ctx) { ctx.emit(record); ctx.emit(record, "${port}"); }`,
      p(parallelism),
    );

  it('never chains along a feedback edge: the way back of a loop crosses threads like a shuffle', () => {
    const plan = planOf(
      [source('src'), processOp('a', undefined, p(2)), looping('b', 'back', 2), sink('out')],
      [
        edge('e1', 'src', 'a', { partition: 'hash', key: 'k' }),
        edge('e2', 'a', 'b', { partition: 'forward' }),
        edge('e3', 'b', 'a', { fromPort: 'back', partition: 'hash', key: 'k', feedback: true }),
        edge('e4', 'b', 'out'),
      ],
    );
    const placement = placeSubtasks(plan, 2);
    expect(placement.threads).toBe(2);
    // a and b are one forward chain, whose subtasks are dealt like any others.
    expect(threadsOf(placement)).toEqual({ src: [0], a: [1, 0], b: [1, 0], out: [1] });
  });

  it('would not chain along a forward feedback edge either (validation refuses one today)', () => {
    const valid = validateJob(
      job(
        [
          source('src', p(2)),
          looping('loop', 'again', 2),
          processOp('next', undefined, p(2)),
          sink('out', p(2)),
        ],
        [
          edge('e1', 'src', 'loop', { partition: 'hash', key: 'k' }),
          edge('e2', 'next', 'loop', { partition: 'hash', key: 'k', feedback: true }),
          edge('e3', 'loop', 'next', { fromPort: 'again', partition: 'hash', key: 'k' }),
          edge('e4', 'loop', 'out', { partition: 'forward' }),
        ],
      ),
    );
    expect(valid.problems).toEqual([]);
    const job2 = valid.job!;
    const forwardBack = job2.edges.map((e) =>
      e.id === 'e2' ? { ...e, partition: 'forward' as const, key: undefined } : e,
    );
    const placement = placeSubtasks(planJob({ ...job2, edges: forwardBack }), 8);
    // Chained over e2, next and loop would share threads; they do not (nor does the sink, one group).
    expect(threadsOf(placement)).toEqual({ src: [0, 1], loop: [2, 3], next: [4, 5], out: [6, 6] });
  });

  it("puts all of a sink's subtasks on one thread, one group dealt like the others", () => {
    const plan = planOf(
      [source('src', p(2)), sink('out', p(2))],
      [edge('e1', 'src', 'out', { partition: 'rebalance' })],
    );
    const placement = placeSubtasks(plan, 4);
    // Groups in order: src#0 src#1 out: three groups, three threads.
    expect(placement.threads).toBe(3);
    expect(threadsOf(placement)).toEqual({ src: [0, 1], out: [2, 2] });
  });

  it('does not chain a forward edge into a sink: the subtasks before it stay on their own threads', () => {
    const plan = planOf(
      [source('src'), processOp('acc', undefined, p(2)), sink('out', p(2))],
      [
        edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }),
        edge('e2', 'acc', 'out', { partition: 'forward' }),
      ],
    );
    const placement = placeSubtasks(plan, 2);
    const { acc } = threadsOf(placement);
    // Chained into the sink's one group, both of acc's subtasks would be pulled onto one thread.
    expect(acc![0]).not.toBe(acc![1]);
    expect(threadsOf(placement)).toEqual({ src: [0], acc: [1, 0], out: [1, 1] });
  });

  it('keeps a forward chain before a sink chained, and the sink after it out of the chain', () => {
    const plan = planOf(
      [source('src'), mapOp('m', p(2)), processOp('proc', undefined, p(2)), sink('out', p(2))],
      [
        edge('e1', 'src', 'm', { partition: 'rebalance' }),
        edge('e2', 'm', 'proc', { partition: 'forward' }),
        edge('e3', 'proc', 'out', { partition: 'forward' }),
      ],
    );
    const placement = placeSubtasks(plan, 4);
    // Groups in order: src, the chain m->proc #0 and #1, out.
    expect(placement.threads).toBe(4);
    expect(threadsOf(placement)).toEqual({ src: [0], m: [1, 2], proc: [1, 2], out: [3, 3] });
  });

  it('gives a job without operators one thread', () => {
    const placement = placeSubtasks(planOf([], []), 4);
    expect(placement.threads).toBe(1);
    expect(placement.byOperator.size).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses %d threads', (threads) => {
    const plan = planOf([source('src'), sink('out')], [edge('e1', 'src', 'out')]);
    expect(() => placeSubtasks(plan, threads)).toThrow(/threads must be a whole number, 1 or more/);
  });

  it('depends only on the plan: the same placement every time', () => {
    const make = () =>
      planOf(
        [source('src', p(3)), processOp('acc', undefined, p(5)), sink('out', p(2))],
        [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
      );
    expect(threadsOf(placeSubtasks(make(), 2))).toEqual(threadsOf(placeSubtasks(make(), 2)));
  });

  it('runs a job on no more threads than its highest parallelism (threadsFor)', () => {
    const p1 = planOf(
      [source('src'), processOp('acc'), sink('out')],
      [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
    );
    expect(placeSubtasks(p1, 8).threads).toBe(3);
    expect(threadsFor(p1, 8)).toBe(1);
    const p3 = planOf(
      [source('src'), processOp('acc', undefined, p(3)), sink('out')],
      [edge('e1', 'src', 'acc', { partition: 'hash', key: 'k' }), edge('e2', 'acc', 'out')],
    );
    expect(threadsFor(p3, 8)).toBe(3);
    expect(threadsFor(p3, 2)).toBe(2);
    expect(threadsFor(p3, 1)).toBe(1);
  });
});
