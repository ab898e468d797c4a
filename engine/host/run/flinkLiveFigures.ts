// A run on Flink in the designer's live panels: Flink's REST figures in the events a local run
// sends (RunMetricsEvent, RunCheckpointEvent). Flink runs a chain of operators as one task per
// subtask, so where time went (busy, backpressured, idle: the same metrics the local engine
// mirrors) is the task's, shown for every operator of the chain; records in and out are each
// operator's own. The runner names every operator by its id (flink/PROTOCOL.md) and ids are
// [A-Za-z0-9_-], so a vertex's name, `Source: gen -> e1 -> count`, says which operators it runs.
import type {
  FlinkCheckpoint,
  FlinkCheckpointSubtask,
  FlinkVertex,
  VertexSubtaskRecords,
} from '../../deploy/flinkRest.js';
import type { FlinkPlan } from '../../graph/flinkPlan.js';
import { keyGroupRange } from '../../graph/keyGroups.js';
import type {
  EdgeLive,
  RunCheckpointEvent,
  RunMetricsEvent,
  SubtaskLive,
} from '../../protocol/runProtocol.js';

/** The task's own metrics, per subtask. */
const TASK_METRICS = ['busyTimeMsPerSecond', 'backPressuredTimeMsPerSecond', 'idleTimeMsPerSecond'] as const;

/** A plan operator in a vertex, and the name its metrics go by there. */
export interface ChainedOperator {
  readonly id: string;
  /** `Source__gen` for a source (Flink's "Source: gen", its `: ` made `__` in metric names), else the id. */
  readonly metricName: string;
  readonly source: boolean;
}

export interface VertexOperators {
  readonly vertexId: string;
  readonly parallelism: number;
  readonly operators: readonly ChainedOperator[];
}

/**
 * Which plan operators each vertex runs. A chain's first name is always an operator's (a source's
 * with "Source: " before it); later ones are chained operators, or the runner's own steps named by
 * an edge's id, which may equal an operator's: a first name claims an id before a later one does.
 */
export function vertexOperators(vertices: readonly FlinkVertex[], plan: FlinkPlan): VertexOperators[] {
  const ids = new Set(plan.operators.map((o) => o.id));
  const claimed = new Map<string, string>();
  const chains = vertices.map((v) => v.name.split(' -> ').map((part) => part.replace(/^Source: /, '')));
  chains.forEach((chain, i) => {
    const first = chain[0];
    if (first !== undefined && ids.has(first)) claimed.set(first, vertices[i]!.id);
  });
  chains.forEach((chain, i) => {
    for (const name of chain.slice(1))
      if (ids.has(name) && !claimed.has(name)) claimed.set(name, vertices[i]!.id);
  });
  return vertices.map((v, i) => ({
    vertexId: v.id,
    parallelism: v.parallelism,
    operators: [...new Set(chains[i])]
      .filter((name) => claimed.get(name) === v.id)
      .map((id) => {
        const source = v.name.split(' -> ')[0] === `Source: ${id}`;
        return { id, metricName: source ? `Source__${id}` : id, source };
      }),
  }));
}

/** The metric ids a sample reads of a vertex: the task's, and each operator's records in and out. */
export function metricIdsOf(vertex: VertexOperators): string[] {
  const ids: string[] = [];
  for (let s = 0; s < vertex.parallelism; s++) {
    for (const metric of TASK_METRICS) ids.push(`${s}.${metric}`);
    for (const op of vertex.operators)
      ids.push(`${s}.${op.metricName}.numRecordsIn`, `${s}.${op.metricName}.numRecordsOut`);
  }
  return ids;
}

/** What a sample reads of one vertex: its metrics by id, and its subtasks' network records. */
export interface VertexSample {
  readonly metrics: ReadonlyMap<string, number>;
  readonly records: readonly VertexSubtaskRecords[];
}

/**
 * One sample of the run's metrics, as runMetricsFeed.ts's liveMetrics makes for a local run.
 * What a vertex's subtask read from the network is its chain's first operator's records in, and
 * what it wrote its last operator's records out (after it come only the runner's per-edge steps,
 * one record out per record in); those counts are exact once the job has ended, where operator
 * metrics are as Flink last fetched them. An operator inside a chain has only its metrics.
 */
export function flinkMetricsEvent(
  runId: string,
  plan: FlinkPlan,
  vertices: readonly VertexOperators[],
  samples: ReadonlyMap<string, VertexSample>,
  elapsedMs: number,
): RunMetricsEvent {
  const held = new Map<string, number | undefined>();
  const operators = vertices.flatMap((vertex) => {
    const sample = samples.get(vertex.vertexId);
    const got = sample?.metrics ?? new Map<string, number>();
    const last = vertex.operators.length - 1;
    return vertex.operators.map((op, position) => {
      const subtasks: SubtaskLive[] = [];
      for (let s = 0; s < vertex.parallelism; s++) {
        const read = (metric: string) => got.get(`${s}.${op.metricName}.${metric}`) ?? 0;
        const network = sample?.records.find((r) => r.subtask === s);
        const recordsOut =
          position === last && network !== undefined ? network.written : read('numRecordsOut');
        // A source's records in are what it read, which is what it sends on (as locally).
        const recordsIn = op.source
          ? recordsOut
          : position === 0 && network !== undefined
            ? network.read
            : read('numRecordsIn');
        const time: Record<string, number> = {};
        for (const metric of TASK_METRICS) {
          const value = got.get(`${s}.${metric}`);
          if (value !== undefined) time[metric] = value;
        }
        const range = keyGroupRange(s, vertex.parallelism, plan.maxParallelism);
        // Flink counts network buffers, not records, waiting at an input: not the same figure.
        subtasks.push({
          subtask: s,
          recordsIn,
          recordsOut,
          queued: 0,
          ...time,
          keyGroups: [range.start, range.end],
        });
      }
      const pressures = subtasks.map((s) => s.backPressuredTimeMsPerSecond).filter((v) => v !== undefined);
      held.set(op.id, pressures.length === 0 ? undefined : Math.max(...pressures));
      return {
        id: op.id,
        recordsIn: subtasks.reduce((n, s) => n + s.recordsIn, 0),
        recordsOut: subtasks.reduce((n, s) => n + s.recordsOut, 0),
        subtasks,
      };
    });
  });
  const edges = plan.edges.map((edge): EdgeLive => {
    const pressure = held.get(edge.from);
    return {
      id: edge.id,
      from: edge.from,
      ...(pressure === undefined ? {} : { backPressuredTimeMsPerSecond: pressure }),
    };
  });
  return { runId, elapsedMs, operators, edges };
}

/**
 * A checkpoint Flink finished (completed or failed) as the Checkpoints panel lists one. Each
 * vertex's subtasks are put down to the first operator of its chain: Flink reports a task's
 * snapshot whole, and a chain holds at most one keyed operator (a keyBy starts a new chain).
 */
export function flinkCheckpointEvent(
  runId: string,
  checkpoint: FlinkCheckpoint,
  subtasks: ReadonlyMap<string, readonly FlinkCheckpointSubtask[]>,
  vertices: readonly VertexOperators[],
): RunCheckpointEvent {
  const rows = vertices.flatMap((vertex) => {
    const operator = vertex.operators[0]?.id;
    if (operator === undefined) return [];
    return (subtasks.get(vertex.vertexId) ?? []).map((s) => ({
      operator,
      subtask: s.index,
      bytes: s.checkpointed_size ?? 0,
      fullBytes: s.state_size ?? 0,
      syncMs: s.checkpoint?.sync ?? 0,
      asyncMs: s.checkpoint?.async ?? 0,
      alignmentMs: s.alignment?.duration ?? 0,
    }));
  });
  const failed = checkpoint.status === 'FAILED';
  return {
    runId,
    id: checkpoint.id,
    status: failed ? 'failed' : 'completed',
    ...(failed ? { reason: checkpoint.failure_message ?? 'Flink gave no reason' } : {}),
    triggeredAt: new Date(checkpoint.trigger_timestamp).toISOString(),
    durationMs: checkpoint.end_to_end_duration,
    bytes: checkpoint.checkpointed_size,
    fullBytes: checkpoint.state_size,
    // Flink's "processed data" is bytes of buffers an unaligned checkpoint took, not records.
    inFlightRecords: 0,
    subtasks: rows,
  };
}
