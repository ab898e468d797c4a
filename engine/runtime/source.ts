// A source as Flink's Source API has it: the work is cut into splits (plain data, stored in a
// checkpoint as opaque ConnectorState), an enumerator says which subtask reads which split (at
// the start, and on restore at any parallelism), and a reader per subtask reads its splits into
// the subtask's emitter. A kind implements these; a generic logic (engine/operators) drives them.
import type { OperatorSnapshot, SubtaskEnvironment } from './operatorLogic.js';

/** Turns a kind's splits into what a checkpoint stores, and back. */
export interface SplitSerializer<Split> {
  toPayload(split: Split): unknown;
  fromPayload(payload: unknown): Split;
}

export interface SplitEnumerator<Split> {
  /**
   * The splits each of `parallelism` subtasks reads, by subtask: the whole input on a fresh
   * start (`restored` undefined), or what a checkpoint left unread (its subtasks may have been
   * more or fewer).
   */
  assign(parallelism: number, restored: readonly Split[] | undefined): readonly (readonly Split[])[];
}

/** One subtask's reader: it emits into `env.emitter`, setting the emitter's lineage per record. */
export interface SourceReader<Split> {
  /** Before the first poll; a file that cannot be read fails here, naming it. */
  open(splits: readonly Split[]): Promise<void>;
  /**
   * Emits up to `limit` records (stopping early when the emitter is blocked): the count emitted,
   * or -1 once every split is read. A promise only when reading went asynchronous.
   */
  poll(limit: number): number | Promise<number>;
  /** At a checkpoint's barrier, synchronously, between two records: what is left to read. */
  snapshotSplits(checkpointId: number): readonly Split[];
  /**
   * Checkpoint `checkpointId` is complete (every sink committed it): a reader may now tell its
   * server what it has read (Kafka group offsets, a replication slot's confirmed position).
   */
  checkpointComplete?(checkpointId: number): void;
  /**
   * A checkpoint's barrier is due: false while the reader is somewhere no split can describe (a
   * database snapshot being read in one transaction); the checkpoint then waits while the reader
   * goes on, and is taken once this says true.
   */
  readyForSnapshot?(): boolean;
  /** A reader on a schedule: when its next records are due (see OperatorLogic.dueAt). */
  dueAt?(): number;
  /** Every split read, or the job failed: release what is open. */
  close(): Promise<void>;
  /** Debug runs' time travel (see OperatorLogic.progress). */
  progress?(): unknown;
  restoreProgress?(progress: unknown): void | Promise<void>;
}

/** How a source's records carry event time (Flink's WatermarkStrategy, bounded out-of-orderness). */
export interface SourceEventTime {
  /** The watermark after a record is the highest timestamp emitted so far minus this. */
  readonly maxOutOfOrdernessMs: number;
  /**
   * A subtask that emits nothing for this long (wall clock) is idle: it stops holding back the
   * watermark of the operators it feeds until it emits again.
   */
  readonly idleTimeoutMs?: number | undefined;
}

export interface Source<Split> {
  /**
   * Present when its readers give each record an event time (`emitter.lineage.timestamp`): the
   * engine then makes watermarks from those times, after each record, so that a run, its debug
   * replay and its restore see the same watermarks at the same records.
   */
  readonly eventTime?: SourceEventTime | undefined;
  /**
   * It waits on something whose time no run reproduces (a broker, a socket): a call still pending
   * once the job's own work is done steps aside (OperatorLogic.waitsInPlace). Absent for files,
   * whose reads and writes are waited for in place, so a run's order stays the same every time.
   */
  readonly waitsOnWorld?: boolean;
  /** Names this source's splits in a checkpoint: a restore hands back only splits of this kind. */
  readonly splitKind: string;
  readonly serializer: SplitSerializer<Split>;
  readonly enumerator: SplitEnumerator<Split>;
  createReader(env: SubtaskEnvironment): SourceReader<Split>;
}

/** What a source subtask's snapshot holds: its splits as the checkpoint stores them. */
export function splitSnapshot<Split>(source: Source<Split>, splits: readonly Split[]): OperatorSnapshot {
  return {
    splits: splits.map((split) => ({ kind: source.splitKind, payload: source.serializer.toPayload(split) })),
  };
}
