// Watching the calls into user code of a run's threads from the thread that can stop them:
// how long the call in progress on each has lasted, told once when it is long, and a stuck one
// found when a stop has waited STUCK_AFTER_MS (see threadedJobRun.ts, which has one thread to
// watch; a run on several threads has one marker per thread).
import type { CallMarkerView, MarkedCall } from '../runtime/callMarker.js';
import {
  describeCall,
  NOTICE_AFTER_MS,
  overTimeLimitMessage,
  STUCK_AFTER_MS,
  stuckStopMessage,
} from './stuckCall.js';

/** A call a thread has had in progress for a while, as the designer's run status shows it. */
export interface CallInProgress {
  readonly call: MarkedCall;
  readonly forMs: number;
}

/** The longest call in progress on any of the threads `views` watch, with how long it has lasted. */
export function longestCall(views: readonly CallMarkerView[]): CallInProgress | undefined {
  const now = performance.now();
  let longest: CallInProgress | undefined;
  for (const view of views) {
    const forMs = view.stuckFor(now);
    const call = view.current();
    if (call !== undefined && forMs >= (longest?.forMs ?? 0)) longest = { call, forMs };
  }
  return longest;
}

export class CallWatch {
  /** Per view, whether its call in progress has been told of. */
  private readonly noticed: boolean[];
  private stopAskedAt: number | undefined;

  constructor(
    private readonly views: readonly CallMarkerView[],
    private readonly limitMs: number | undefined,
    private readonly onLongCall: ((text: string) => void) | undefined,
    /** Ends the run with this message. */
    private readonly fail: (message: string) => void,
  ) {
    this.noticed = views.map(() => false);
  }

  stopAsked(): void {
    this.stopAskedAt ??= performance.now();
  }

  /** The call in progress on some thread, if any (the first found). */
  current(): MarkedCall | undefined {
    for (const view of this.views) {
      const call = view.current();
      if (call !== undefined) return call;
    }
    return undefined;
  }

  /** Call on a timer: a call's length is known to its period. */
  look(): void {
    const now = performance.now();
    this.views.forEach((view, i) => {
      const stuckFor = view.stuckFor(now);
      if (stuckFor < NOTICE_AFTER_MS) this.noticed[i] = false;
      const call = view.current();
      if (call === undefined) return;
      if (this.limitMs !== undefined && stuckFor >= this.limitMs) {
        this.fail(overTimeLimitMessage(call, stuckFor, this.limitMs));
        return;
      }
      if (stuckFor >= NOTICE_AFTER_MS && !this.noticed[i]) {
        this.noticed[i] = true;
        this.onLongCall?.(describeCall(call, stuckFor));
      }
      if (this.stopAskedAt === undefined || now - this.stopAskedAt < STUCK_AFTER_MS) return;
      if (stuckFor >= STUCK_AFTER_MS) this.fail(stuckStopMessage(call, stuckFor));
    });
  }
}
