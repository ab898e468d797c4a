// How a subtask takes part in checkpoints, as the runtime sees it: at the cut (aligned barriers,
// or a trigger where no barrier comes) it hands over what it holds, and engine/checkpoint writes
// and acknowledges it. The runtime never sees a file or the coordinator.
import type { StateSize } from '../state/keyedState.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { FeedbackLog } from './barrierAligner.js';
import type { OperatorSnapshot } from './operatorLogic.js';
import type { SourceTimeState } from './sourceWatermarks.js';
import type { SubtaskTimeState } from './subtaskTime.js';

/** What a subtask holds at the cut of one checkpoint. */
export interface SnapshotCut {
  readonly checkpointId: number;
  /** performance.now() when the subtask took it. */
  readonly startedAt: number;
  /** How long inputs were held back for the alignment. */
  readonly alignmentMs: number;
  readonly operatorPart: OperatorSnapshot;
  readonly stateSize: StateSize;
  /**
   * A loop head's log of the records that come round the loop after the cut: complete now, or
   * filling until the barrier has come back round (then feedbackComplete()).
   */
  readonly feedback: { readonly log: FeedbackLog; readonly complete: boolean } | undefined;
  /** Its inputs' watermarks. */
  readonly time: SubtaskTimeState;
  /** A source with event time: how far its records' times have gone. */
  readonly sourceTime: SourceTimeState | undefined;
}

export interface SubtaskCheckpointer {
  /**
   * Takes this subtask's part of a checkpoint; the files are written while records keep
   * flowing. A promise only when the subtask must wait before its next record (LevelDB taking
   * a base copy).
   */
  snapshot(cut: SnapshotCut): MaybePromise;
  /** A loop head's log is complete: the barrier came back round (or the loop ended). */
  feedbackComplete(log: FeedbackLog): void;
  /** A snapshot waits for its barrier to come back round a loop (that takes steps). */
  readonly awaitingFeedback: boolean;
  /**
   * Debug runs going back in time: a log still filling is closed with what it holds, so the
   * snapshot's files finish and can be waited for.
   */
  abandon(openLog: FeedbackLog | undefined): void;
  /** The run is over: state snapshot files not part of a completed checkpoint go. */
  discard(): Promise<void>;
}
