// Planning: a validated job becomes operators in a deterministic order, each with its parallel
// subtasks and the edges that wire them. The runtime builds channels from this; the designer
// shows it. Pure: no Node API.
import type { Edge, Job, Operator, Partition } from './schema.js';

export interface PlannedEdge {
  readonly id: string;
  readonly from: string;
  readonly fromPort: string;
  readonly to: string;
  readonly partition: Partition;
  /** Key field paths split into segments; one entry per component of a composite key. */
  readonly keyPaths: readonly (readonly string[])[];
  /** True when `key` is an array (a composite key), so ctx.key is an array too. */
  readonly compositeKey: boolean;
  readonly feedback: boolean;
}

export interface PlannedOperator {
  readonly id: string;
  readonly operator: Operator;
  readonly parallelism: number;
  /** Position in the topological order of the graph without feedback edges. */
  readonly order: number;
  readonly inputs: readonly PlannedEdge[];
  /** Outgoing edges by port name. */
  readonly outputs: ReadonlyMap<string, readonly PlannedEdge[]>;
  /** True when every input is hash-partitioned (and there is at least one), so ctx.key exists. */
  readonly keyed: boolean;
  /** True when a feedback edge arrives here: the operator heads a loop. */
  readonly loopHead: boolean;
  /**
   * A transaction operator: it routes its records itself. Its input edges are planned as
   * broadcast, whatever the job file says; in a run the engine routes each record to the
   * subtasks that own its rows and progress marks to the others (runtime/edgeRouter.ts), in a
   * debug run it broadcasts. The subtasks send each other the rows they read over the internal
   * feedback edge `rowsEdgeId(id)`.
   */
  readonly transactional: boolean;
}

export interface Plan {
  readonly name: string;
  readonly maxParallelism: number;
  /** Topological order (feedback edges ignored); ties keep the order of the job file. */
  readonly operators: readonly PlannedOperator[];
  readonly byId: ReadonlyMap<string, PlannedOperator>;
}

/** The port and id of a transaction operator's internal edge (never in a job file: ids there are words). */
export const ROWS_PORT = '~rows';
export function rowsEdgeId(operatorId: string): string {
  return `${operatorId}~rows`;
}

export function keyPathsOf(edge: Pick<Edge, 'key'>): string[][] {
  if (edge.key === undefined) return [];
  const keys = Array.isArray(edge.key) ? edge.key : [edge.key];
  return keys.map((k) => k.split('.'));
}

/** Plans a job that passed validation; on a job with a cycle of non-feedback edges it throws. */
export function planJob(job: Job): Plan {
  const inputs = new Map<string, PlannedEdge[]>();
  const outputs = new Map<string, Map<string, PlannedEdge[]>>();
  for (const op of job.operators) {
    inputs.set(op.id, []);
    outputs.set(op.id, new Map());
  }
  const transactional = new Set(job.operators.filter((op) => op.kind === 'transaction').map((op) => op.id));
  const edges: Edge[] = [...job.edges];
  for (const id of transactional) {
    edges.push({
      id: rowsEdgeId(id),
      from: id,
      fromPort: ROWS_PORT,
      to: id,
      partition: 'broadcast',
      feedback: true,
    });
  }
  for (const edge of edges) {
    // Into a transaction each subtask takes the records of its rows, in one order (see
    // operators/transaction): a broadcast edge the engine routes (runtime/edgeRouter.ts).
    const routed = transactional.has(edge.to) && !edge.feedback;
    const planned: PlannedEdge = {
      id: edge.id,
      from: edge.from,
      fromPort: edge.fromPort,
      to: edge.to,
      partition: routed ? 'broadcast' : edge.partition,
      keyPaths: routed ? [] : keyPathsOf(edge),
      compositeKey: !routed && Array.isArray(edge.key),
      feedback: edge.feedback,
    };
    inputs.get(edge.to)?.push(planned);
    const ports = outputs.get(edge.from);
    if (ports) {
      const list = ports.get(edge.fromPort) ?? [];
      list.push(planned);
      ports.set(edge.fromPort, list);
    }
  }

  const order = topologicalOrder(job);
  const planned: PlannedOperator[] = order.map((op, index) => {
    const ins = inputs.get(op.id) ?? [];
    return {
      id: op.id,
      operator: op,
      parallelism: op.parallelism,
      order: index,
      inputs: ins,
      outputs: outputs.get(op.id) ?? new Map(),
      keyed: ins.length > 0 && ins.every((e) => e.partition === 'hash'),
      loopHead: ins.some((e) => e.feedback),
      transactional: transactional.has(op.id),
    };
  });
  return {
    name: job.name,
    maxParallelism: job.settings.maxParallelism,
    operators: planned,
    byId: new Map(planned.map((p) => [p.id, p])),
  };
}

function topologicalOrder(job: Job): Operator[] {
  const indegree = new Map<string, number>(job.operators.map((op) => [op.id, 0]));
  const next = new Map<string, string[]>(job.operators.map((op) => [op.id, []]));
  for (const edge of job.edges) {
    if (edge.feedback) continue;
    indegree.set(edge.to, (indegree.get(edge.to) ?? 0) + 1);
    next.get(edge.from)?.push(edge.to);
  }
  const byId = new Map(job.operators.map((op) => [op.id, op]));
  const position = new Map(job.operators.map((op, i) => [op.id, i]));
  // Kahn's algorithm, always taking the ready operator that comes first in the file, so the
  // order (and with it the scheduler's delivery order) depends only on the job.
  const ready = job.operators.filter((op) => indegree.get(op.id) === 0).map((op) => op.id);
  const result: Operator[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    const id = ready.shift()!;
    result.push(byId.get(id)!);
    for (const to of next.get(id) ?? []) {
      const left = (indegree.get(to) ?? 0) - 1;
      indegree.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  if (result.length !== job.operators.length) {
    throw new Error('planJob: the graph without feedback edges has a cycle (validate the job first)');
  }
  return result;
}
