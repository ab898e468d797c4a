// What preview sinks receive, sent to the designer in batches: one 'run.output' event per sink
// operator every PREVIEW_EVERY_MS. A run can produce millions of records a second, far more than
// a panel can show or a socket should carry, so a batch holds at most PREVIEW_BATCH records and
// says how many more arrived in its interval and were not sent.
import type { RunEvents } from './runProtocol.js';

export const PREVIEW_EVERY_MS = 200;
export const PREVIEW_BATCH = 500;

type OutputEvent = RunEvents['run.output'];

export class PreviewOutput {
  private readonly batches = new Map<string, { records: unknown[]; dropped: number }>();
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
    if (batch.records.length < PREVIEW_BATCH) batch.records.push(record);
    else batch.dropped++;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), PREVIEW_EVERY_MS);
      this.timer.unref();
    }
  };

  /** Sends what has gathered now (the run ended, or paused). */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [operator, { records, dropped }] of this.batches) {
      this.send({ runId: this.runId, operator, records, ...(dropped === 0 ? {} : { dropped }) });
    }
    this.batches.clear();
  }
}
