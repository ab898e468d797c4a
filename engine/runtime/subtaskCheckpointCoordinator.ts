// A subtask's side of a checkpoint (Flink's SubtaskCheckpointCoordinator): when to cut, and the
// cut itself. The gate aligns the barriers and the checkpointer writes the files; this decides
// the moment between them, which is not always the barriers' (a source has none, a logic may
// first have to finish what the records before them made possible), and hands the checkpointer
// what the subtask holds at that moment.
import { after, type MaybePromise } from '../state/maybePromise.js';
import type { FeedbackLog } from './barrierAligner.js';
import { barrier } from './envelope.js';
import type { OperatorLogic } from './operatorLogic.js';
import type { Subtask } from './subtask.js';
import type { SubtaskCheckpointer } from './subtaskCheckpointing.js';

/** Where a subtask's checkpoints stand between two steps of a debug run (time travel). */
export interface CheckpointProgress {
  readonly barrierDue: number | undefined;
  readonly lastSnapshot: number;
}

export class SubtaskCheckpointCoordinator {
  /** A checkpoint to take before the next record: at sources, and where no input can bring a barrier. */
  private barrierDue: number | undefined;
  /**
   * The last checkpoint this subtask took part in. On several threads a checkpoint's trigger may
   * reach it after the barriers have (they come over other threads' links): it is then done.
   */
  private lastSnapshot = 0;
  /**
   * A checkpoint whose barriers are aligned while the logic still finishes what the records
   * before them made possible (readyForSnapshot), and what follows its snapshot.
   */
  private waitingSnapshot:
    | { readonly id: number; readonly then: (() => MaybePromise) | undefined }
    | undefined;

  constructor(
    private readonly task: Subtask,
    private readonly checkpointer: SubtaskCheckpointer | undefined,
  ) {}

  /**
   * The coordinator started checkpoint `id`. Sources take it before their next record; so does
   * a subtask no barrier can reach any more (finished, or a loop head whose regular inputs
   * have ended). The others wait for the barrier on their inputs.
   */
  trigger(id: number): void {
    if (id <= this.lastSnapshot) return;
    const task = this.task;
    if (task.phase === 'running' && !task.isSource && task.gate.barrierCanCome) task.gate.expect(id);
    else this.barrierDue = id;
  }

  /** The checkpoint this subtask takes at its next slice, where no barrier comes to it. */
  get due(): number | undefined {
    return this.barrierDue;
  }

  takeDue(): MaybePromise {
    const id = this.barrierDue!;
    this.barrierDue = undefined;
    return this.aligned(id, undefined);
  }

  /** A snapshot waits for the logic to be ready for it. */
  get waiting(): boolean {
    return this.waitingSnapshot !== undefined;
  }

  /**
   * The barriers are aligned: the snapshot now, unless the logic must first finish what the
   * records before them made possible (it then waits on feedback input only); `then` follows it.
   */
  aligned(checkpointId: number, then: (() => MaybePromise) | undefined): MaybePromise {
    if (this.task.logic.readyForSnapshot?.() === false && this.checkpointer !== undefined) {
      this.waitingSnapshot = { id: checkpointId, then };
      return undefined;
    }
    const snapshot = this.takeSnapshot(checkpointId);
    return then === undefined ? snapshot : after(snapshot, then);
  }

  /** Bound once: it follows records while a snapshot waits, and a closure per record would cost. */
  readonly snapshotIfReady = (): MaybePromise => {
    const waiting = this.waitingSnapshot;
    if (waiting === undefined || this.task.logic.readyForSnapshot?.() === false) return undefined;
    this.waitingSnapshot = undefined;
    return this.aligned(waiting.id, waiting.then);
  };

  /** A loop head's log is complete, once the barrier came back round or the loop ended. */
  feedbackDone(log: FeedbackLog | undefined): void {
    if (log !== undefined) this.checkpointer?.feedbackComplete(log);
  }

  /**
   * The cut: the operator's own part and the state's synchronous part now, then the barrier
   * goes on downstream; the checkpointer writes the files while records keep flowing. A promise
   * only when this subtask must wait before its next record (LevelDB taking a base).
   */
  private takeSnapshot(checkpointId: number): MaybePromise {
    const checkpointer = this.checkpointer;
    if (checkpointer === undefined) return undefined;
    const task = this.task;
    this.lastSnapshot = checkpointId;
    const startedAt = performance.now();
    const alignmentMs = task.gate.alignmentMs(startedAt);
    let operatorPart: ReturnType<OperatorLogic['snapshot']>;
    try {
      operatorPart = task.logic.snapshot(checkpointId);
    } catch (error) {
      throw task.failure(error);
    }
    const stateSize = task.state?.stateSize() ?? { entries: 0, bytes: 0, keys: 0 };
    const loopHead = task.operator.loopHead && task.phase !== 'finished';
    const feedback = task.gate.release(checkpointId, loopHead);
    const taken = checkpointer.snapshot({
      checkpointId,
      startedAt,
      alignmentMs,
      operatorPart,
      stateSize,
      feedback,
      time: task.time.state(),
      sourceTime: task.sourceWatermarks?.state(),
    });
    if (task.phase !== 'finished') {
      task.emitter.tellSkipped();
      for (const channel of task.emitter.allChannels) channel.push(barrier(checkpointId));
    }
    return taken;
  }

  /** A loop head's snapshot is waiting for its barrier to come back round (that takes steps). */
  get awaitingFeedback(): boolean {
    return this.checkpointer?.awaitingFeedback === true;
  }

  /**
   * Gives up the checkpoint in progress (time travel goes back to before it): alignment stops,
   * and a feedback log waiting for its barrier to come back round is closed with what it holds,
   * so that the snapshot's files finish and can be waited for.
   */
  abandon(): void {
    this.barrierDue = undefined;
    this.waitingSnapshot = undefined;
    this.checkpointer?.abandon(this.task.gate.openLog);
    this.task.gate.resetAlignment();
  }

  /** The run is over: snapshot files no completed checkpoint holds go. */
  discard(): MaybePromise {
    return this.checkpointer?.discard();
  }

  progress(): CheckpointProgress {
    return { barrierDue: this.barrierDue, lastSnapshot: this.lastSnapshot };
  }

  restoreProgress(progress: CheckpointProgress): void {
    this.barrierDue = progress.barrierDue;
    this.lastSnapshot = progress.lastSnapshot;
  }
}
