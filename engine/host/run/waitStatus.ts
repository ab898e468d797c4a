// What a run's connectors wait for (a server that does not answer), shown in the run's status for
// as long as they wait ("Running — operator "orders" (subtask 1 of 2): waiting for Kafka at ...:
// retry 3 in 800 ms"), also while the job opens, and the plain status again once they go on.
// HostRun hears each change from the engine (RunOptions.onWait, from any of its threads), as it
// shows a long call (longCallStatus.ts).
import { type SubtaskWait, waitKey, waitLabel } from '../../metrics/waitNotices.js';

export class WaitStatus {
  /** Per subtask waiting, its line, in the order the waits began. */
  private readonly waits = new Map<string, string>();
  /** What the status shows now (undefined: the run's own status). */
  private shown: string | undefined;

  constructor(
    /** Sends the run's status with this message instead of its own, or (undefined) as it is. */
    private readonly show: (message: string | undefined) => void,
  ) {}

  /** A subtask's wait began, changed or ended. */
  change(wait: SubtaskWait): void {
    const key = waitKey(wait);
    if (wait.message === undefined) this.waits.delete(key);
    else this.waits.set(key, `${waitLabel(wait)}: ${wait.message}`);
    const lines = [...this.waits.values()];
    const text = lines.length <= 1 ? lines[0] : `${lines[0]} (and ${lines.length - 1} more waiting)`;
    if (text === this.shown) return;
    this.shown = text;
    this.show(text);
  }

  /** The run sent a status of its own: a wait still going on shows again at its next change. */
  replaced(): void {
    this.shown = undefined;
  }
}
