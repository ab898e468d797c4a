// A run's figures as the progress display, the metrics file and the designer read them: per
// subtask, then per operator. On several threads each thread reports its own subtasks' rows and
// the main thread puts them together.
import type { Plan } from '../graph/plan.js';
import { type JobMetrics, operatorTotals, type SubtaskMetrics } from '../metrics/jobMetrics.js';
import type { Subtask } from '../runtime/subtask.js';

/** One subtask's row, named by its operator. */
export interface SubtaskRow extends SubtaskMetrics {
  readonly operatorId: string;
}

export function subtaskRow(s: Subtask): SubtaskRow {
  const size = s.stateSize();
  return {
    operatorId: s.operator.id,
    subtask: s.subtask,
    recordsIn: s.recordsIn,
    recordsOut: s.emitter.recordsOut,
    queued: s.gate.counter.queued,
    ...s.load.perSecond(),
    ...(size === undefined
      ? {}
      : { stateEntries: size.entries, stateBytes: size.bytes, stateKeys: size.keys }),
    ...timeFigures(s),
    ...(s.emitter.recordsSkipped > 0 ? { recordsSkipped: s.emitter.recordsSkipped } : {}),
    ...(s.waitReport?.message === undefined ? {} : { wait: s.waitReport.message }),
  };
}

/** Watermark, its lag and timers, where the subtask has them (JSON has no infinities). */
function timeFigures(s: Subtask): { watermark?: number; watermarkLagMs?: number; timers?: number } {
  const source = s.sourceWatermarks;
  const watermark = source?.watermark ?? s.time.watermark;
  const newest = source?.highestTime ?? s.time.newestRecord;
  const timers = s.time.store?.count;
  return {
    ...(Number.isFinite(watermark) ? { watermark } : {}),
    ...(Number.isFinite(watermark) && Number.isFinite(newest)
      ? { watermarkLagMs: Math.max(0, newest - watermark) }
      : {}),
    ...(timers === undefined ? {} : { timers }),
  };
}

/** The job's metrics from its subtasks' rows (a subtask with no row yet counts as idle). */
export function jobMetrics(
  job: string,
  plan: Plan,
  elapsedMs: number,
  rows: readonly SubtaskRow[],
): JobMetrics {
  // Grouped once: filtering all rows per operator made each sample quadratic in the job's size
  // (8,000 chained operators spent the whole run computing samples).
  const byOperator = new Map<string, SubtaskMetrics[]>();
  for (const { operatorId, ...row } of rows) {
    const group = byOperator.get(operatorId);
    if (group === undefined) byOperator.set(operatorId, [row]);
    else group.push(row);
  }
  return {
    job,
    elapsedMs,
    operators: plan.operators.map((op) => {
      const subtasks = (byOperator.get(op.id) ?? []).sort((a, b) => a.subtask - b.subtask);
      const totals = operatorTotals(subtasks);
      return {
        id: op.id,
        kind: op.operator.kind,
        parallelism: op.parallelism,
        recordsIn: totals.recordsIn,
        recordsOut: totals.recordsOut,
        ...(totals.stateEntries === undefined
          ? {}
          : {
              stateEntries: totals.stateEntries,
              stateBytes: totals.stateBytes,
              stateKeys: totals.stateKeys,
            }),
        subtasks,
      };
    }),
  };
}
