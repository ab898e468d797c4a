// The live metrics a run sends to the designer: per operator and subtask the counters of
// JobRun.metrics() (where each subtask's time went among them: busy, backpressured, idle), the
// key groups each subtask owns, and per edge how much its producer is held back. A sample reads
// figures the engine keeps anyway (no scan of state or channels' contents), so sending one
// twice a second costs the run nothing it would notice.
import { keyGroupRange } from '../../graph/keyGroups.js';
import type { Plan } from '../../graph/plan.js';
import type { JobMetrics, OperatorMetrics } from '../../metrics/jobMetrics.js';
import type { EdgeLive, RunMetricsEvent, SubtaskLive } from '../../protocol/runProtocol.js';

/** Twice a second: the panels promise a refresh at least once a second, and a timer can fire late. */
export const METRICS_EVERY_MS = 500;

/** How much an operator is held back: its most held-back subtask's share, if measured. */
function heldBack(op: OperatorMetrics | undefined): number | undefined {
  let most: number | undefined;
  for (const s of op?.subtasks ?? []) {
    const held = s.backPressuredTimeMsPerSecond;
    if (held !== undefined && (most === undefined || held > most)) most = held;
  }
  return most;
}

export function liveMetrics(runId: string, plan: Plan, metrics: JobMetrics): RunMetricsEvent {
  const byId = new Map(metrics.operators.map((op) => [op.id, op]));
  return {
    runId,
    elapsedMs: metrics.elapsedMs,
    operators: metrics.operators.map((op) => {
      const parallelism = plan.byId.get(op.id)?.parallelism ?? op.parallelism;
      return {
        id: op.id,
        recordsIn: op.recordsIn,
        recordsOut: op.recordsOut,
        subtasks: op.subtasks.map((s): SubtaskLive => {
          const range = keyGroupRange(s.subtask, parallelism, plan.maxParallelism);
          return { ...s, keyGroups: [range.start, range.end] };
        }),
      };
    }),
    edges: plan.operators.flatMap((op) => {
      // An edge is held back as much as the operator it leaves: that is whose output waits.
      const held = heldBack(byId.get(op.id));
      return [...op.outputs.values()].flat().map(
        (edge): EdgeLive => ({
          id: edge.id,
          from: op.id,
          ...(held === undefined ? {} : { backPressuredTimeMsPerSecond: held }),
        }),
      );
    }),
  };
}

/** Sends a sample every METRICS_EVERY_MS until stopped, and a last one when it stops. */
export class MetricsFeed {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sample: () => RunMetricsEvent,
    private readonly send: (event: RunMetricsEvent) => void,
    private readonly everyMs = METRICS_EVERY_MS,
  ) {}

  start(): void {
    this.send(this.sample());
    this.timer = setInterval(() => this.send(this.sample()), this.everyMs);
    // A feed must never be what keeps the host process alive.
    this.timer.unref();
  }

  /** Also sends a sample now, e.g. when the run pauses or ends, so the panels show where it stands. */
  now(): void {
    this.send(this.sample());
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.send(this.sample());
  }
}
