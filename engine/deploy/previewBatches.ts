// A preview's sink records on a worker of a run on several threads, gathered into batches for
// the main thread, which hands them to the run's preview listener (a function cannot cross to a
// worker). A message per record would cost more than the record; a batch goes when it is big
// enough, a moment after its first record, and when the thread closes, so the listener gets
// every record, in order per sink subtask.
import type { PreviewListener } from '../operators/sinkPreview.js';

/** Records per batch: one message carries this many at most. */
const BATCH_RECORDS = 500;
/** How long a record may wait for its batch to fill (the designer shows batches every 200 ms). */
const BATCH_WAIT_MS = 50;

export interface PreviewBatch {
  readonly operatorId: string;
  readonly subtask: number;
  readonly records: unknown[];
}

export class PreviewBatches {
  /** By operator and subtask, in the order their first records came. */
  private readonly batches = new Map<string, PreviewBatch>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly send: (batch: PreviewBatch) => void) {}

  /** The preview sinks' listener (see RunOptions.previewSinks). */
  readonly receive: PreviewListener = (operatorId, subtask, record) => {
    const id = `${operatorId}\0${subtask}`;
    let batch = this.batches.get(id);
    if (batch === undefined) {
      batch = { operatorId, subtask, records: [] };
      this.batches.set(id, batch);
    }
    batch.records.push(record);
    if (batch.records.length >= BATCH_RECORDS) {
      this.batches.delete(id);
      this.send(batch);
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), BATCH_WAIT_MS);
      // A timer that holds the thread would hide a call nothing can settle (partExecutor.ts).
      this.timer.unref();
    }
  };

  /** Sends every batch now. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const batch of this.batches.values()) this.send(batch);
    this.batches.clear();
  }
}
