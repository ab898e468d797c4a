// What a kind of operator does inside one subtask. The subtask owns the input channels, the
// emitter and the state; a logic only turns records into emits.
import type { PlannedOperator } from '../graph/plan.js';
import type { KeyedState } from '../state/keyedState.js';
import type { Channel } from './channel.js';
import type { CheckpointFiles } from './checkpointFiles.js';
import type { ConnectorState } from './connectorState.js';
import type { Emitter } from './emitter.js';
import type { Envelope, SkipCount } from './envelope.js';
import type { SourceEventTime } from './source.js';
import type { FiredTimer, TimerService } from './timers.js';
import type { TransactionTap } from './transactionReport.js';

export interface SubtaskEnvironment {
  readonly operator: PlannedOperator;
  readonly subtask: number;
  readonly parallelism: number;
  /** Directory of the job file: relative paths in params resolve against it. */
  readonly jobDir: string;
  readonly emitter: Emitter;
  /** Keyed state, when every input is hash-partitioned. */
  readonly state: KeyedState | undefined;
  /** The envelope being processed (its key and time are ctx.key and ctx.timestamp). */
  readonly current: Envelope | undefined;
  /** The id of the edge `current` arrived on (ctx.input); undefined in a timer's call. */
  readonly input: string | undefined;
  /** The channel `current` arrived on, one of `inputs`. */
  readonly inputChannel?: Channel | undefined;
  /** Its input channels, feedback ones first, in the order the subtask reads them. */
  readonly inputs?: readonly Channel[];
  /** The job's number of key groups (rows of a transaction are placed by it). */
  readonly maxParallelism?: number;
  /** Debug runs: hears each transaction a transaction operator's subtask led. */
  readonly transactionTap?: TransactionTap | undefined;
  /**
   * This subtask's event time: the least watermark of its regular inputs, never going back
   * (NO_WATERMARK before any, FINAL_WATERMARK once every input ended).
   */
  readonly watermark: number;
  /**
   * A debug run: keyed state is looked at and rolled back between any two steps, so a logic
   * keeps none of it on the heap (a window's accumulators go to the store with each record).
   */
  readonly stepwise?: boolean;
  /** Timers of the current key, when every input is hash-partitioned (as keyed state). */
  readonly timers: TimerService | undefined;
  /** Where checkpoint files go; undefined when checkpoints are off. */
  readonly checkpoints: CheckpointFiles | undefined;
  /**
   * A connector tells the run's status what it waits for ("Kafka at localhost:9092 does not
   * answer; retry 3 in 2 s"), and (undefined) that it waits no more. Absent where no status is
   * shown (tests, previews).
   */
  readonly reportWait?: (message: string | undefined) => void;
}

/** What an operator itself (beyond its keyed state) puts into a checkpoint. */
export interface OperatorSnapshot {
  /** Sources: what is left to read (see source.ts). */
  readonly splits?: readonly ConnectorState[];
  /**
   * Sinks: what was written since the previous checkpoint, closed, for the committer to commit
   * when the checkpoint completes (see sink.ts), and its bytes (counted as the checkpoint's).
   */
  readonly committable?: Promise<{ readonly state: ConnectorState; readonly bytes: number } | undefined>;
  /** What else the operator holds between records, as JSON (a transaction's queue). */
  readonly operatorState?: unknown;
}

export interface OperatorLogic {
  /**
   * Its asynchronous calls wait only on bounded local I/O (reading or writing a file): the
   * deterministic executor waits for them in place, so a run's order of deliveries is the same
   * every time. Without it (user code, a connector waiting on the network), a call still pending
   * once the job's own work is done steps aside and the other subtasks go on meanwhile.
   */
  readonly waitsInPlace?: boolean;
  /** Sources whose records carry event time: how watermarks are made from those times. */
  readonly eventTime?: SourceEventTime | undefined;
  open(): Promise<void>;
  /** Non-sources: one record. A promise only when the work went asynchronous. */
  process(envelope: Envelope): void | Promise<void>;
  /** Sources: emit up to `limit` records; the count emitted, or -1 once exhausted. */
  produce(limit: number): number | Promise<number>;
  /**
   * Sources on a schedule (`ratePerSec`): when the next records are due (performance.now());
   * a time already past when the source is behind it. Until then it has nothing to do: the
   * backpressure measure (loadMeter.ts) counts that time idle, and the time after it held back
   * when the source does not get its turn.
   */
  dueAt?(): number;
  /** At a checkpoint's barrier, synchronously: between two records. */
  snapshot(checkpointId: number): OperatorSnapshot;
  /**
   * The state browser is about to read keyed state live (between two records): a logic that
   * keeps some of it on the heap between checkpoints (a window's accumulators) writes it first.
   */
  writeHeldState?(): void;
  /**
   * Checkpoint `checkpointId` is complete, every subtask's part and the sinks' commits included
   * (a mail, taken between two records): e.g. a source tells its broker what it has read.
   */
  checkpointComplete?(checkpointId: number): void;
  /**
   * A timer of this logic fired: state is scoped to its key, and `env.current` is undefined.
   * Event-time timers fire in timestamp order as the watermark passes them, before the
   * watermark goes on downstream.
   */
  onTimer?(timer: FiredTimer): void | Promise<void>;
  /**
   * Event time reaches `watermark`, before the event-time timers it makes due fire: a logic that
   * keeps work keyed by event time on the heap (a window's held accumulators) does it now.
   */
  advanceTime?(watermark: number): void;
  /**
   * A regular input channel's watermark came, or (Infinity) it ended: a logic whose order of
   * records waits on every channel (transactions) may go on.
   */
  channelProgress?(channel: Channel, watermark: number): void | Promise<void>;
  /**
   * A routed input channel (runtime/edgeRouter.ts) sent `skipped` records to other subtasks:
   * nothing before them is still coming on it.
   */
  channelSkipped?(channel: Channel, skipped: SkipCount): void | Promise<void>;
  /**
   * A logic that emits records later than it takes them: the least event time of the records it
   * holds (Infinity when none). The subtask's watermark goes on downstream only up to it.
   */
  heldTime?(): number;
  /**
   * A checkpoint's barriers are aligned: false while the logic must first finish what the
   * records before them made possible; the snapshot then waits, taking only feedback input,
   * and is taken once this says true.
   */
  readyForSnapshot?(): boolean;
  /**
   * At a restore, before open(): what every old subtask's snapshot held as `operatorState`, in
   * old subtask order (at any parallelism).
   */
  restoreOperatorState?(states: readonly unknown[]): void;
  /** No more input will come (records may still arrive on feedback edges). */
  endInput(): void | Promise<void>;
  /** The whole job succeeded: make output visible. */
  commit(): Promise<void>;
  /** The job failed or was cancelled: discard what is not committed and release resources. */
  abort(): Promise<void>;
  /**
   * Time travel in debug runs: where the logic stands between two steps (a source's position),
   * as data. A logic without this method cannot be put back in place, and stepping back then
   * replays the run from its start. Keyed state is not part of it: the debugger rolls it back.
   */
  progress?(): unknown;
  /** Puts the logic back where `progress()` said it stood. */
  restoreProgress?(progress: unknown): void | Promise<void>;
}

/** Defaults for the hooks most kinds do not need. */
export abstract class BaseLogic implements OperatorLogic {
  constructor(protected readonly env: SubtaskEnvironment) {}
  async open(): Promise<void> {}
  process(_envelope: Envelope): void | Promise<void> {
    throw new Error(`operator "${this.env.operator.id}" takes no input`);
  }
  produce(_limit: number): number | Promise<number> {
    return -1;
  }
  snapshot(_checkpointId: number): OperatorSnapshot {
    return {};
  }
  endInput(): void | Promise<void> {}
  async commit(): Promise<void> {}
  async abort(): Promise<void> {}
}
