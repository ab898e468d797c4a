// What the host's run thread (runWorker.ts) and the host (runThread.ts) say to each other:
// plain data only (structured clone), one row per message.

import type { RunEvents, RunMethods } from '../../protocol/runProtocol.js';
import type { MarkerUpdate } from '../../runtime/callMarker.js';

/** Handed to the worker as its workerData. */
export interface RunWorkerData {
  /** The desktop app's `DATA/runs` (appDataRunDirs); absent: runs go beside the job file. */
  readonly runsDir?: string;
  /** The call marker's memory (callMarker.ts), shared with the host's thread. */
  readonly marker: SharedArrayBuffer;
}

/** To the worker. */
export type ToRunWorker =
  /** A run method, with params as the peer sent them: the worker's method table checks them. */
  | {
      readonly type: 'call';
      readonly id: number;
      readonly method: keyof RunMethods;
      readonly params: unknown;
    }
  /** The host closes: stop the run cleanly and let go of every store. */
  | { readonly type: 'close'; readonly id: number };

/** From the worker. */
export type FromRunWorker =
  | { readonly type: 'result'; readonly id: number; readonly result: unknown }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
  | { readonly type: 'event'; readonly event: keyof RunEvents; readonly data: unknown }
  | { readonly type: 'marker'; readonly update: MarkerUpdate };
