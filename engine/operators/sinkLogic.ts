// Drives a sink kind's writer as a subtask's logic, and its committer at the end of a bounded job:
// every subtask hands its last committable over, and the last one to do so has the committer
// commit what remains. (Checkpoints' commits go through the checkpoint coordinator.) A subtask
// that aborts ends the run for its committer too: it lets go of its connections then.
import type { ConnectorState } from '../runtime/connectorState.js';
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type OperatorSnapshot, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import type { SinkCommitter, SinkWriter } from '../runtime/sink.js';

/** The end of a bounded job, shared by the subtasks of one sink operator. */
export class SinkEnd {
  private readonly last: (ConnectorState | undefined)[] = [];
  private done = 0;

  constructor(
    private readonly committer: SinkCommitter,
    private readonly parallelism: number,
  ) {}

  async writerDone(subtask: number, last: ConnectorState | undefined): Promise<void> {
    this.last[subtask] = last;
    this.done++;
    if (this.done < this.parallelism) return;
    await this.committer.commitRemaining(this.last.filter((c): c is ConnectorState => c !== undefined));
  }

  /** A writer aborted: the run will commit nothing more. */
  async writerAborted(): Promise<void> {
    await this.committer.close?.();
  }
}

export class SinkWriterLogic extends BaseLogic {
  readonly waitsInPlace: boolean;
  /** Present when the writer can be put back in place (debug runs' time travel). */
  progress?: () => unknown;
  restoreProgress?: (progress: unknown) => void | Promise<void>;

  constructor(
    env: SubtaskEnvironment,
    private readonly writer: SinkWriter,
    private readonly end: SinkEnd,
  ) {
    super(env);
    this.waitsInPlace = writer.waitsOnWorld !== true;
    if (writer.progress !== undefined && writer.restoreProgress !== undefined) {
      this.progress = () => writer.progress!();
      this.restoreProgress = (progress) => writer.restoreProgress!(progress);
    }
  }

  override open(): Promise<void> {
    return this.writer.open();
  }

  override process(envelope: Envelope): void | Promise<void> {
    return this.writer.write(envelope);
  }

  override snapshot(checkpointId: number): OperatorSnapshot {
    const committable = this.writer.prepareCommit(checkpointId);
    return committable === undefined ? {} : { committable };
  }

  override endInput(): Promise<void> {
    return this.writer.endInput();
  }

  override async commit(): Promise<void> {
    const last = await this.writer.prepareCommit(undefined);
    await this.end.writerDone(this.env.subtask, last?.state);
  }

  override async abort(): Promise<void> {
    try {
      await this.writer.abort();
    } finally {
      await this.end.writerAborted();
    }
  }
}
