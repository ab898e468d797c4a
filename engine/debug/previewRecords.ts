// What the sinks of a debug run with preview sinks received: nothing is written, the records are
// kept here (the last PREVIEW_KEPT of each sink) and go back with a step back, as the run does.
import type { PreviewListener } from '../operators/sinkPreview.js';
import { jsonCopy } from './jsonCopy.js';

/** Records kept per sink operator. */
export const PREVIEW_KEPT = 10_000;

export interface SinkPreview {
  readonly operator: string;
  /** The last records it received, oldest first. */
  readonly records: readonly unknown[];
  /** Every record it received in the run so far. */
  readonly total: number;
}

export class PreviewRecords {
  private readonly sinks = new Map<string, { records: unknown[]; total: number }>();

  readonly receive: PreviewListener = (operatorId, _subtask, record) => {
    let sink = this.sinks.get(operatorId);
    if (sink === undefined) {
      sink = { records: [], total: 0 };
      this.sinks.set(operatorId, sink);
    }
    sink.records.push(jsonCopy(record));
    sink.total++;
    if (sink.records.length > PREVIEW_KEPT + PREVIEW_KEPT / 4)
      sink.records = sink.records.slice(-PREVIEW_KEPT);
  };

  /** How many records each sink has received. */
  totals(): Map<string, number> {
    return new Map([...this.sinks].map(([operator, sink]) => [operator, sink.total]));
  }

  /** Back to the totals of an earlier point: the records received since are dropped. */
  truncate(totals: ReadonlyMap<string, number>): void {
    for (const [operator, sink] of this.sinks) {
      const total = totals.get(operator) ?? 0;
      sink.records.length = Math.max(0, sink.records.length - (sink.total - total));
      sink.total = total;
    }
  }

  list(): SinkPreview[] {
    return [...this.sinks].map(([operator, sink]) => ({
      operator,
      records: [...sink.records],
      total: sink.total,
    }));
  }
}
