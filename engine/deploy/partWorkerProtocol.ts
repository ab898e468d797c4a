// What the main thread of a run on several threads and each of its workers say to each other:
// plain data only (structured clone), one row per message. The links between workers carry
// the records (threadLink.ts); none of them pass through here.

import type { MessagePort } from 'node:worker_threads';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import type { SubtaskAck } from '../checkpoint/subtaskCheckpointer.js';
import type { Job } from '../graph/schema.js';
import type { SubtaskWait } from '../metrics/waitNotices.js';
import type { MarkerUpdate } from '../runtime/callMarker.js';
import type { ConnectorState } from '../runtime/connectorState.js';
import type { PartCommand, PartStatus } from '../runtime/partExecutor.js';
import type { KeyRange } from '../state/storeBrowser.js';
import type { SubtaskRow } from './runMetrics.js';

/** Handed to each worker as its workerData. */
export interface PartWorkerData {
  readonly job: Job;
  readonly jobDir: string;
  /** See RunOptions.confined. */
  readonly confined?: boolean;
  readonly stateDir: string;
  /** Absent: the run takes no checkpoints (a preview). */
  readonly checkpointDir?: string;
  readonly restore?: CheckpointMetadata;
  readonly kindModules?: readonly string[];
  /** This worker's thread, among `threads`; the placement is computed alike on every thread. */
  readonly thread: number;
  readonly threads: number;
  /** Per other thread, the port of the link to it (undefined for this one). */
  readonly links: readonly (MessagePort | undefined)[];
  readonly firstCheckpointId: number;
  /** This thread's call marker (callMarker.ts). */
  readonly marker: SharedArrayBuffer;
  /**
   * Sinks write nothing and send what they receive to the main thread (`preview` messages),
   * which hands it to the run's preview listener: a function cannot cross to a worker.
   */
  readonly preview?: boolean;
}

/** A read of a subtask's state for the state browser (storeBrowser.ts), one method of it. */
export type BrowseRequest =
  | { readonly method: 'keys' | 'entries'; readonly range: KeyRange; readonly limit: number }
  | { readonly method: 'values'; readonly keys: readonly string[] };

/** To a worker. */
export type ToPartWorker =
  /** Every part has opened: run. */
  | { readonly type: 'start' }
  | { readonly type: 'trigger'; readonly checkpointId: number }
  | { readonly type: 'complete'; readonly checkpointId: number }
  | { readonly type: 'command'; readonly command: PartCommand }
  /** Say how you stand now (quiet detection's second wave). */
  | { readonly type: 'probe'; readonly round: number }
  /** Sources stop; what is in flight goes on to the sinks. */
  | { readonly type: 'requestStop' }
  /** Hold at the next slice boundary and say so (`paused`, with the same round). */
  | { readonly type: 'pause'; readonly round: number }
  | { readonly type: 'resume' }
  /** Every subtask has finished and the last checkpoint is settled: commit and close. */
  | { readonly type: 'commit' }
  /** Stop where you are: abort what is uncommitted and close (a stop at a checkpoint, a failure elsewhere). */
  | { readonly type: 'abort' }
  /** A call that waits for its answer (`answer`, with the same `call`). */
  | { readonly type: 'call'; readonly call: number; readonly request: PartRequest };

/** What the main thread asks of a thread and waits for. */
export type PartRequest =
  /** The coordinator calls a sink's committer, which runs beside the sink's writers. */
  | {
      readonly method: 'prepare';
      readonly operatorId: string;
      readonly checkpointId: number;
      readonly committables: readonly ConnectorState[];
    }
  | { readonly method: 'commit'; readonly operatorId: string; readonly commit: ConnectorState }
  /** The state browser reads a subtask's store, which only its thread has open. */
  | {
      readonly method: 'browse';
      readonly operatorId: string;
      readonly subtask: number;
      readonly read: BrowseRequest;
    };

/** From a worker. */
export type FromPartWorker =
  | { readonly type: 'marker'; readonly update: MarkerUpdate }
  /** `opened` of its subtasks are open (every OPENING_REPORT_EVERY, while it opens). */
  | { readonly type: 'opening'; readonly opened: number }
  /** Its subtasks are open (state restored, loops replayed); it waits for 'start'. */
  | { readonly type: 'opened' }
  | {
      readonly type: 'ack';
      readonly ordinal: number;
      readonly checkpointId: number;
      readonly ack: SubtaskAck;
    }
  | {
      readonly type: 'ackFailed';
      readonly ordinal: number;
      readonly checkpointId: number;
      readonly reason: string;
    }
  | { readonly type: 'idle'; readonly status: PartStatus }
  | { readonly type: 'probed'; readonly round: number; readonly status: PartStatus }
  /** Every subtask of this thread has finished (it still takes part in a checkpoint in flight). */
  | { readonly type: 'finished' }
  /** This thread's subtasks' rows (with where their time went: runtime/loadMeter.ts). */
  | { readonly type: 'metrics'; readonly subtasks: readonly SubtaskRow[] }
  /** Held by pause `round` (or ended, or resumed first): its rows as they stand, for good. */
  | { readonly type: 'paused'; readonly round: number; readonly subtasks: readonly SubtaskRow[] }
  /** Records a preview sink subtask received, in order, since its last batch. */
  | {
      readonly type: 'preview';
      readonly operatorId: string;
      readonly subtask: number;
      readonly records: readonly unknown[];
    }
  /** The answer to `call` (`failed`: its error's message, e.g. the store has closed). */
  | { readonly type: 'answer'; readonly call: number; readonly result?: unknown; readonly failed?: string }
  /** Committed (or aborted) and closed: the thread ends after this. */
  | { readonly type: 'closed'; readonly subtasks: readonly SubtaskRow[] }
  /** A subtask's connector began, changed or ended a wait (also while the part opens). */
  | { readonly type: 'wait'; readonly wait: SubtaskWait }
  /** Opening or running failed; `message` is for the user as it is. */
  | { readonly type: 'failed'; readonly message: string };
