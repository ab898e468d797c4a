// How a run is opened: where it reads and writes, and what watches it.
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';
import type { CheckpointMetadata } from '../checkpoint/checkpointMetadata.js';
import type { SubtaskWait } from '../metrics/waitNotices.js';
import type { PreviewListener } from '../operators/sinkPreview.js';
import type { CallMarker } from '../runtime/callMarker.js';
import type { DeliveryObserver } from '../runtime/subtask.js';
import type { KeyedState, StateApi } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';

/**
 * A worker reports how far its job's opening has come each time this many more of its subtasks
 * are open: a job of thousands of operators takes seconds to open (docs/job-file.md, "Size").
 */
export const OPENING_REPORT_EVERY = 1000;

export interface RunOptions {
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  /**
   * The job is not trusted (docs/security.md): an operator naming a file outside `jobDir` (where
   * it really leads, links followed) or an environment variable fails the run as it opens, on
   * every thread. The CLI and the host say which; absent, the caller trusts the job.
   */
  readonly confined?: boolean;
  /** Where LevelDB state lives; its `subtasks/` folder is the engine's and starts empty. */
  readonly stateDir: string;
  /** Where checkpoints go; needed when the job takes checkpoints or restores one. */
  readonly checkpointDir?: string;
  /** A completed checkpoint (loaded and verified) to resume from. */
  readonly restore?: CheckpointMetadata;
  /** Sees every delivery, in order (tests, the debugger's trace). */
  readonly observer?: DeliveryObserver;
  /** Sees every checkpoint as it completes or fails. */
  readonly onCheckpoint?: (event: CheckpointEvent) => void;
  /** Sinks write nothing and hand each record here instead (the designer's preview). */
  readonly previewSinks?: PreviewListener;
  /** A debug run: driven step by step (see step()) by engine/debug's DebugSession. */
  readonly debug?: DebugHooks;
  /**
   * Marks each call into an operator's logic, for the thread that can stop this one to say
   * where it was stuck (runs on a worker thread have one).
   */
  readonly callMarker?: CallMarker;
  /** Hears what a subtask's connector waits for, each change as it comes (env.reportWait). */
  readonly onWait?: (wait: SubtaskWait) => void;
  /** Told as each subtask (of this thread's part) has opened: how far a big job's opening is. */
  readonly onSubtaskOpened?: () => void;
}

/** What a debug run adds to a run. */
export interface DebugHooks {
  /** Wraps each keyed subtask's store: the debugger's journal, which rolls state back. */
  readonly wrapStore: (store: KvStore) => KvStore;
  /** Wraps what user code sees as ctx.state: the debugger records each access. */
  readonly wrapStateApi: (api: StateApi, state: KeyedState) => StateApi;
  /** The first checkpoint's id: a run opened again to replay numbers its checkpoints as the first did. */
  readonly firstCheckpointId?: number;
}
