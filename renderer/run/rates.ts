// Records per second from the run's cumulative counters: each run.metrics event carries the
// records in and out of every operator since the run started, so a rate is the difference of
// two successive events over the time between them.
import type { RunMetricsEvent } from '../../engine/protocol/protocol.js';

export interface Counters {
  readonly elapsedMs: number;
  readonly operators: ReadonlyMap<string, { readonly recordsIn: number; readonly recordsOut: number }>;
}

export interface OperatorRate {
  readonly inPerSec: number;
  readonly outPerSec: number;
}

export interface RateSample {
  /** Seconds since the run started, at the newer event. */
  readonly t: number;
  readonly operators: ReadonlyMap<string, OperatorRate>;
}

export function countersOf(event: RunMetricsEvent): Counters {
  return {
    elapsedMs: event.elapsedMs,
    operators: new Map(
      event.operators.map((op) => [op.id, { recordsIn: op.recordsIn, recordsOut: op.recordsOut }]),
    ),
  };
}

/** Counters at the start of a run: everything is zero then, so the first event gives the average so far. */
export const RUN_START: Counters = { elapsedMs: 0, operators: new Map() };

/**
 * The rates between two events. Undefined when no time passed or time went backwards (a new
 * run's first event compared with the old run's last); an operator whose counter went down (it
 * was restarted) gets no rate rather than a negative one.
 */
export function ratesBetween(previous: Counters, next: RunMetricsEvent): RateSample | undefined {
  const seconds = (next.elapsedMs - previous.elapsedMs) / 1000;
  if (!(seconds > 0)) return undefined;
  const operators = new Map<string, OperatorRate>();
  for (const op of next.operators) {
    const before = previous.operators.get(op.id) ?? { recordsIn: 0, recordsOut: 0 };
    const dIn = op.recordsIn - before.recordsIn;
    const dOut = op.recordsOut - before.recordsOut;
    if (dIn < 0 || dOut < 0) continue;
    operators.set(op.id, { inPerSec: dIn / seconds, outPerSec: dOut / seconds });
  }
  return { t: next.elapsedMs / 1000, operators };
}
