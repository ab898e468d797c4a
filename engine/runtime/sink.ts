// A sink as Flink's Sink V2 has it: a two-phase commit. A writer per subtask writes, and at each
// checkpoint's barrier prepares what it wrote since the last one as a committable (plain data);
// a committer per operator commits a checkpoint's committables once the checkpoint is complete,
// commits what remains at the end of a bounded job, and on restore redoes the checkpoint's
// commit (idempotently) and discards what it did not commit. A kind implements these; a generic
// logic (engine/operators) drives the writer, the checkpoint coordinator the committer.

import type { MaybePromise } from '../state/maybePromise.js';
import type { ConnectorState } from './connectorState.js';
import type { Envelope } from './envelope.js';

/** What a writer hands a checkpoint: the committable, and how many bytes it wrote for it (metrics). */
export interface Committable {
  readonly state: ConnectorState;
  readonly bytes: number;
}

export interface SinkWriter {
  /**
   * It waits on something whose time no run reproduces (a broker, a socket): a call still pending
   * once the job's own work is done steps aside (OperatorLogic.waitsInPlace). Absent for files,
   * whose reads and writes are waited for in place, so a run's order stays the same every time.
   */
  readonly waitsOnWorld?: boolean;
  open(): Promise<void>;
  /** One record; a promise when the writer must be waited for (its backpressure). */
  write(envelope: Envelope): void | Promise<void>;
  /**
   * At checkpoint `checkpointId`'s barrier, synchronously between two records: closes what was
   * written since the previous barrier; its committable once that is durable (undefined: none).
   * Also called for checkpoints taken after endInput (their barrier cannot reach a finished
   * subtask), where what endInput closed goes with the first. `undefined` as the id: the bounded
   * job has ended, and whatever no checkpoint has taken goes to SinkCommitter.commitRemaining.
   */
  prepareCommit(checkpointId: number | undefined): MaybePromise<Committable | undefined>;
  /** No more input: closes what was written since the last barrier. */
  endInput(): Promise<void>;
  /** The job failed or stopped: discard what no checkpoint has taken, and release resources. */
  abort(): Promise<void>;
  /** Debug runs' time travel (see OperatorLogic.progress). */
  progress?(): unknown;
  restoreProgress?(progress: unknown): void | Promise<void>;
}

export interface SinkCommitter {
  /**
   * Before checkpoint `checkpointId`'s metadata is written, with the committables its subtasks
   * prepared (in subtask order): what the checkpoint's completion commits. That includes what
   * checkpoints that failed had prepared. The checkpoint stores it; a restore hands it to recover.
   */
  prepare(checkpointId: number, committables: readonly ConnectorState[]): Promise<ConnectorState | undefined>;
  /** The checkpoint is complete (its metadata durable): make what `prepare` said visible. */
  commit(commit: ConnectorState): Promise<void>;
  /**
   * The bounded job ended and every writer with it: commit everything not committed yet, the
   * writers' last committables (`prepareCommit(undefined)`, in subtask order) included.
   */
  commitRemaining(last: readonly ConnectorState[]): Promise<void>;
  /**
   * Restore from checkpoint `checkpointId`, before any writer opens: redo its commit (undefined
   * when it had none for this sink) so that the output is exactly what it committed.
   */
  recover(commit: ConnectorState | undefined, checkpointId: number): Promise<void>;
  /**
   * The run is over without commitRemaining (it failed, or stopped, or did not open): let go of
   * any connection held, so that nothing is left open on the server or keeps the thread alive.
   * May come more than once.
   */
  close?(): Promise<void>;
}

/** A sink operator's committer, as the checkpoint coordinator and restore find it. */
export interface SinkCommitterOf {
  readonly operatorId: string;
  readonly committer: SinkCommitter;
}
