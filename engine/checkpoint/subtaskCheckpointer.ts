// A subtask's part of each checkpoint, written while its records keep flowing: the keyed state's
// snapshot, the operator's own part (a source's splits, a sink's committable), and a loop head's
// log of the records that came round the loop after the cut. Once every file is written, the
// coordinator gets the acknowledgement.
import type { FeedbackLog } from '../runtime/barrierAligner.js';
import type { SnapshotCut, SubtaskCheckpointer } from '../runtime/subtaskCheckpointing.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { SubtaskSnapshot } from './checkpointMetadata.js';
import type { CheckpointStorage } from './checkpointStorage.js';
import type { StateSnapshots } from './stateSnapshots.js';

/** What one subtask contributes to one checkpoint, once its files are written. */
export interface SubtaskAck {
  readonly snapshot: SubtaskSnapshot;
  readonly persistedBytes: number;
  readonly fullBytes: number;
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly alignmentMs: number;
  readonly inFlightRecords: number;
}

export interface CheckpointAcker {
  /** `ordinal`: the subtask's index among the run's. */
  acknowledge(ordinal: number, checkpointId: number, ack: Promise<SubtaskAck>): void;
}

export interface SubtaskIdentity {
  readonly operatorId: string;
  readonly subtask: number;
  readonly ordinal: number;
}

export class FileSubtaskCheckpointer implements SubtaskCheckpointer {
  /** Loop heads: snapshots waiting for their log, resolved when the barrier has come back round. */
  private readonly feedbackWaiters = new Map<number, (log: FeedbackLog) => void>();

  constructor(
    private readonly who: SubtaskIdentity,
    private readonly storage: CheckpointStorage,
    private readonly acker: CheckpointAcker,
    /** The keyed state's snapshots; undefined for a subtask without keyed state. */
    private readonly state: StateSnapshots | undefined,
  ) {}

  snapshot(cut: SnapshotCut): MaybePromise {
    const { checkpointId, startedAt, operatorPart } = cut;
    const statePart = this.state?.snapshot(checkpointId, cut.stateSize);
    let feedback: MaybePromise<FeedbackLog>;
    if (cut.feedback !== undefined) {
      const { log, complete } = cut.feedback;
      feedback = complete
        ? Promise.resolve(log)
        : new Promise((resolve) => this.feedbackWaiters.set(checkpointId, resolve));
    }
    // The synchronous part ends when the subtask may take records again (after LevelDB has
    // written what a new base must hold).
    const syncEnded =
      statePart === undefined
        ? Promise.resolve(performance.now())
        : statePart.taken.then(() => performance.now());
    const ack = (async (): Promise<SubtaskAck> => {
      const asyncStarted = await syncEnded;
      const [state, committable, logged] = await Promise.all([
        statePart?.written,
        operatorPart.committable,
        feedback,
      ]);
      const feedbackRef = logged === undefined ? undefined : await this.writeFeedback(checkpointId, logged);
      const snapshot: SubtaskSnapshot = {
        operator: this.who.operatorId,
        subtask: this.who.subtask,
        ...(operatorPart.splits === undefined ? {} : { splits: operatorPart.splits }),
        ...(operatorPart.operatorState === undefined ? {} : { operatorState: operatorPart.operatorState }),
        ...(state === undefined ? {} : { state: state.handle }),
        ...(feedbackRef === undefined
          ? {}
          : { feedback: feedbackRef, feedbackRecords: logged!.records.length }),
        ...(committable === undefined ? {} : { committable: committable.state }),
        ...(cut.time.valve.inputs.length === 0 ? {} : { time: cut.time }),
        ...(cut.sourceTime === undefined ? {} : { sourceTime: cut.sourceTime }),
      };
      return {
        snapshot,
        persistedBytes: (state?.persistedBytes ?? 0) + (feedbackRef?.bytes ?? 0) + (committable?.bytes ?? 0),
        fullBytes: cut.stateSize.bytes,
        syncMs: asyncStarted - startedAt,
        asyncMs: performance.now() - asyncStarted,
        alignmentMs: cut.alignmentMs,
        inFlightRecords: logged?.records.length ?? 0,
      };
    })();
    this.acker.acknowledge(this.who.ordinal, checkpointId, ack);
    return statePart?.taken;
  }

  /** The records that came round the loop, in arrival order, as one file (none when there were none). */
  private async writeFeedback(checkpointId: number, logged: FeedbackLog) {
    if (logged.records.length === 0) return undefined;
    const storage = this.storage;
    const writer = storage.createDataFile(
      storage.dataPath(this.who.operatorId, this.who.subtask, `feedback-${checkpointId}.jsonl`),
    );
    for (const e of logged.records) {
      const wait = writer.write([e.value, e.key ?? null, e.keyGroup, e.timestamp ?? null]);
      if (wait !== undefined) await wait;
    }
    return writer.close();
  }

  feedbackComplete(log: FeedbackLog): void {
    this.feedbackWaiters.get(log.checkpointId)?.(log);
    this.feedbackWaiters.delete(log.checkpointId);
  }

  get awaitingFeedback(): boolean {
    return this.feedbackWaiters.size > 0;
  }

  abandon(openLog: FeedbackLog | undefined): void {
    for (const [id, resolve] of this.feedbackWaiters) {
      resolve(openLog?.checkpointId === id ? openLog : { checkpointId: id, records: [], waiting: new Set() });
    }
    this.feedbackWaiters.clear();
  }

  async discard(): Promise<void> {
    await this.state?.discard();
  }
}
