// What a run's connectors wait for (a server that does not answer), shown in the run's status for
// as long as they wait ("Running — operator "orders" (subtask 1 of 2): waiting for Kafka at ...:
// retry 3 in 800 ms"), and the plain status again once they go on. Read from the metrics samples
// the run sends anyway (their subtasks' `wait`), so it works alike for a run on one thread and on
// several. The host's thread shows it so (runThread.ts), as it shows a long call (longCallStatus.ts).
import { type WaitSample, waitSummary } from '../metrics/waitNotices.js';

export class WaitStatus {
  /** What the status shows now (undefined: the run's own status). */
  private shown: string | undefined;

  constructor(
    /** Sends the run's status with this message instead of its own, or (undefined) as it is. */
    private readonly show: (message: string | undefined) => void,
  ) {}

  /** A metrics sample of the active run came. */
  look(sample: WaitSample): void {
    const text = waitSummary(sample);
    if (text === this.shown) return;
    this.shown = text;
    this.show(text);
  }

  /** The run sent a status of its own: a wait still going on shows again at the next sample. */
  replaced(): void {
    this.shown = undefined;
  }
}
