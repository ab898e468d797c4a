// Which thread runs each subtask, for the parallel executor. Two rules, as Flink's chaining and
// slot sharing: a forward edge never crosses threads (subtask i of every operator of a forward
// chain shares a thread, so the records it carries are never encoded), and the work of every
// stage is spread over all threads (the groups are dealt round-robin in the plan's order, one
// counter across operators, so each thread gets a share of the sources, of the keyed work and
// of the sinks, rather than a thread per stage). One exception: a sink's subtasks share one
// thread, since they and the sink's committer share its target (the parts written, what is
// published), and its committer runs beside them; so a forward edge into a sink is not chained
// (that would pull the whole chain onto the sink's thread). Pure: no Node API.
import { findKind } from './kinds/kindRegistry.js';
import type { Plan, PlannedEdge } from './plan.js';

export interface ThreadPlacement {
  /** The threads the job runs on: at most as many as asked, none without a subtask (but at least 1). */
  readonly threads: number;
  /** Per operator id, the thread of each subtask index. */
  readonly byOperator: ReadonlyMap<string, readonly number[]>;
}

/**
 * A forward edge chains its ends (validation has them at one parallelism), unless it is a loop's
 * way back, which Flink never chains either (validation has those hash-partitioned today).
 */
function chains(edge: PlannedEdge, plan: Plan): boolean {
  return edge.partition === 'forward' && !edge.feedback && !isSink(plan, edge.to);
}

function isSink(plan: Plan, operatorId: string): boolean {
  return findKind(plan.byId.get(operatorId)!.operator.kind)?.role === 'sink';
}

/** Each operator's chain, named by one of its operators (union-find over chaining edges). */
function chainsOf(plan: Plan): (id: string) => string {
  const parent = new Map<string, string>(plan.operators.map((op) => [op.id, op.id]));
  // Every operator on the way gets the root as its parent (full path compression): setting only
  // the first made a forward chain of N operators cost N^2/2 steps (100,000: minutes).
  const root = (id: string): string => {
    let at = id;
    while (parent.get(at) !== at) at = parent.get(at)!;
    for (let next = id; next !== at; ) {
      const up = parent.get(next)!;
      parent.set(next, at);
      next = up;
    }
    return at;
  };
  for (const op of plan.operators) {
    for (const edge of op.inputs) {
      if (chains(edge, plan)) parent.set(root(edge.from), root(edge.to));
    }
  }
  return root;
}

/**
 * Places every subtask of the plan on one of `threads` threads (a whole number, 1 or more).
 * A job without subtasks still gets one thread.
 */
export function placeSubtasks(plan: Plan, threads: number): ThreadPlacement {
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`placeSubtasks: threads must be a whole number, 1 or more (got ${threads})`);
  }
  const chainOf = chainsOf(plan);
  const whole = new Set(plan.operators.filter((op) => isSink(plan, op.id)).map((op) => chainOf(op.id)));
  /** The position in which each (chain, subtask index) group was first met. */
  const groups = new Map<string, number>();
  const groupOf = plan.operators.map((op) => {
    const chain = chainOf(op.id);
    return Array.from({ length: op.parallelism }, (_, index) => {
      const group = whole.has(chain) ? chain : `${chain}\u0000${index}`;
      if (!groups.has(group)) groups.set(group, groups.size);
      return groups.get(group)!;
    });
  });
  const effective = Math.max(1, Math.min(threads, groups.size));
  return {
    threads: effective,
    byOperator: new Map(
      plan.operators.map((op, i) => [op.id, groupOf[i]!.map((group) => group % effective)]),
    ),
  };
}

/**
 * The threads a job runs on when `requested` are asked for: never more than its highest
 * parallelism, nor than it has groups. Threads spread parallel work: a job at parallelism 1 on
 * two threads (its stages on different threads, pipelined) ran at 0.87x its speed on one in the
 * checkpoints bench, since every record it hands across is encoded and decoded.
 */
export function threadsFor(plan: Plan, requested: number): number {
  const highest = Math.max(1, ...plan.operators.map((op) => op.parallelism));
  return placeSubtasks(plan, Math.min(requested, highest)).threads;
}
