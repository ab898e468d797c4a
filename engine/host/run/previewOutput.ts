// What preview sinks receive, sent to the designer in batches: one 'run.output' event per sink
// operator every PREVIEW_EVERY_MS, with the sink's running total. A run can produce millions of records a second, far more than
// a panel can show or a socket should carry, so a batch holds the last PREVIEW_BATCH records of its
// interval and says how many came before them and were not sent.
import type { RunEvents } from '../../protocol/runProtocol.js';

export const PREVIEW_EVERY_MS = 200;
export const PREVIEW_BATCH = 500;

type OutputEvent = RunEvents['run.output'];

export class PreviewOutput {
  private readonly batches = new Map<string, { records: unknown[]; dropped: number }>();
  private readonly totals = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly runId: string,
    private readonly send: (event: OutputEvent) => void,
  ) {}

  /** A preview sink's listener (see JobRun's previewSinks). */
  readonly receive = (operatorId: string, _subtask: number, record: unknown): void => {
    let batch = this.batches.get(operatorId);
    if (batch === undefined) {
      batch = { records: [], dropped: 0 };
      this.batches.set(operatorId, batch);
    }
    batch.records.push(record);
    // Trimmed now and then, not on every record: the batch keeps its last PREVIEW_BATCH.
    if (batch.records.length >= 2 * PREVIEW_BATCH) {
      batch.dropped += batch.records.length - PREVIEW_BATCH;
      batch.records = batch.records.slice(-PREVIEW_BATCH);
    }
    this.totals.set(operatorId, (this.totals.get(operatorId) ?? 0) + 1);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), PREVIEW_EVERY_MS);
      this.timer.unref();
    }
  };

  /** Sends what has gathered now (the run ended, or paused). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [operator, batch] of this.batches) {
      const records = batch.records.slice(-PREVIEW_BATCH);
      const dropped = batch.dropped + batch.records.length - records.length;
      const total = this.totals.get(operator) ?? 0;
      this.send({ runId: this.runId, operator, records, ...(dropped === 0 ? {} : { dropped }), total });
    }
    this.batches.clear();
  }
}
