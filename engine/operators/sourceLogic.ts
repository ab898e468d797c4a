// Drives a source kind's reader as a subtask's logic: the reader only reads splits, this turns
// that into produce / snapshot / close as the subtask calls them.
import { BaseLogic, type OperatorSnapshot, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { type Source, type SourceEventTime, type SourceReader, splitSnapshot } from '../runtime/source.js';

export class SourceReaderLogic<Split> extends BaseLogic {
  readonly waitsInPlace: boolean;
  readonly eventTime: SourceEventTime | undefined;
  /** Present when the reader can be put back in place (debug runs' time travel). */
  progress?: () => unknown;
  restoreProgress?: (progress: unknown) => void | Promise<void>;
  /** Present when the reader keeps a schedule (a rate). */
  dueAt?: () => number;

  constructor(
    env: SubtaskEnvironment,
    private readonly source: Source<Split>,
    private readonly reader: SourceReader<Split>,
    private readonly splits: readonly Split[],
  ) {
    super(env);
    this.waitsInPlace = source.waitsOnWorld !== true;
    this.eventTime = source.eventTime;
    if (reader.dueAt !== undefined) this.dueAt = () => reader.dueAt!();
    if (reader.progress !== undefined && reader.restoreProgress !== undefined) {
      this.progress = () => reader.progress!();
      this.restoreProgress = (progress) => reader.restoreProgress!(progress);
    }
  }

  override open(): Promise<void> {
    return this.reader.open(this.splits);
  }

  override produce(limit: number): number | Promise<number> {
    return this.reader.poll(limit);
  }

  override snapshot(checkpointId: number): OperatorSnapshot {
    return splitSnapshot(this.source, this.reader.snapshotSplits(checkpointId));
  }

  checkpointComplete(checkpointId: number): void {
    this.reader.checkpointComplete?.(checkpointId);
  }

  readyForSnapshot(): boolean {
    return this.reader.readyForSnapshot?.() ?? true;
  }

  override endInput(): Promise<void> {
    return this.reader.close();
  }

  override abort(): Promise<void> {
    return this.reader.close();
  }
}
