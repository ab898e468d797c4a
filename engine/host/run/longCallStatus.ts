// A call into user code that has lasted NOTICE_AFTER_MS, shown in the run's status for as long
// as it lasts, its seconds counted up ("...; Stop ends it"), and the plain status again once it
// returns. The host's thread shows its run thread's calls so (runThread.ts); a run on several
// threads shows its workers' calls so from the run thread (hostRun.ts).

import { describeCall, NOTICE_AFTER_MS } from '../../deploy/stuckCall.js';
import type { MarkedCall } from '../../runtime/callMarker.js';

export class LongCallStatus {
  /** The status shows the call (the run's own status has not replaced it since). */
  private showing = false;
  /** The second of the call last shown: the status changes once a second, not on every look. */
  private second = -1;

  constructor(
    /** Sends the run's status with this message instead of its own, or (undefined) as it is. */
    private readonly show: (message: string | undefined) => void,
  ) {}

  /** On the watch's timer: the call in progress (undefined: none, or the run has ended). */
  look(call: MarkedCall | undefined, forMs: number): void {
    if (call === undefined) {
      if (this.showing) this.show(undefined);
      this.showing = false;
      this.second = -1;
      return;
    }
    const second = Math.floor(forMs / 1000);
    if (forMs < NOTICE_AFTER_MS || second === this.second) return;
    this.second = second;
    this.showing = true;
    this.show(`${describeCall(call, forMs)}; Stop ends it`);
  }

  /** The run sent a status of its own: the call shows again at its next second. */
  replaced(): void {
    this.showing = false;
  }
}
