// The checkpoint coordinator: asks for a checkpoint every interval (one at a time), gathers every
// subtask's acknowledgement, writes the metadata atomically, and only then publishes the sinks'
// parts and lets old checkpoints go. A checkpoint that cannot complete is reported as failed;
// the job goes on and the next one starts afresh. The end of a bounded job is a checkpoint too
// (Flink's FLIP-147): taken once every subtask has finished, marked `finished`, its completion
// makes the sinks' last commit, so that no commit is ever made outside a checkpoint.
import type { Plan } from '../graph/plan.js';
import type { Job } from '../graph/schema.js';
import type { CheckpointFigures } from '../metrics/checkpointFigures.js';
import type { CheckpointParticipants } from '../runtime/executor.js';
import type { SinkCommitterOf } from '../runtime/sink.js';
import {
  CHECKPOINT_FORMAT,
  type CheckpointMetadata,
  type OperatorRecord,
  type SinkCommit,
} from './checkpointMetadata.js';
import type { CheckpointStorage } from './checkpointStorage.js';
import type { CheckpointAcker, SubtaskAck } from './subtaskCheckpointer.js';

/** One line of `--metrics` per checkpoint. */
export interface CheckpointEvent extends CheckpointFigures {
  readonly type: 'checkpoint';
}

/** The coordinator between two steps of a debug run (time travel). */
export interface CoordinatorProgress {
  readonly nextId: number;
  readonly due: boolean;
  readonly completed: number;
  /** A checkpoint started that no subtask has taken its snapshot of yet. */
  readonly started: { readonly id: number; readonly triggeredAt: Date } | undefined;
}

interface InFlight {
  readonly id: number;
  readonly triggeredAt: Date;
  readonly started: number;
  /** By the subtask's ordinal. */
  readonly acks: Map<number, Promise<SubtaskAck>>;
  /** Resolves when the checkpoint has completed (or failed) and its sinks are published. */
  readonly settled: Promise<void>;
  readonly settle: () => void;
  /** Given up by a debug run going back in time: it completes nothing. */
  dropped: boolean;
  /** Taken once every subtask had finished: the end of a bounded job. */
  readonly final: boolean;
  /** Hears how it ended (a clean stop's own checkpoint: see requestNow). */
  readonly onEnded: ((completed: boolean) => void) | undefined;
}

export class CheckpointCoordinator implements CheckpointAcker {
  private nextId: number;
  private due = false;
  private timer: NodeJS.Timeout | undefined;
  private current: InFlight | undefined;
  private stopped = false;
  private abandoned = false;
  /** What the next checkpoint to start tells how it ended (requestNow). */
  private requested: ((completed: boolean) => void) | undefined;
  /** Ids of checkpoints that completed in this run. */
  readonly completed: number[] = [];
  onEvent: ((event: CheckpointEvent) => void) | undefined;
  /** A checkpoint retention must keep whatever comes after it (see JobRun.open). */
  pinned: number | undefined;

  constructor(
    private readonly storage: CheckpointStorage,
    private readonly job: Job,
    private readonly plan: Plan,
    private readonly participants: CheckpointParticipants,
    /** The sinks' committers: each commits its sink's part of a checkpoint once it is complete. */
    private readonly sinks: readonly SinkCommitterOf[],
    firstId: number,
  ) {
    this.nextId = firstId;
  }

  /** Starts the interval; 0 means checkpoints only on request. */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.due = true;
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * Asks for a checkpoint as soon as possible. `onEnded` hears how that checkpoint ends: the one
   * this starts, never one already in flight, which cut the job before the request (a clean stop
   * takes a checkpoint of its own and ends right after it, JobRun.stop).
   */
  requestNow(onEnded?: (completed: boolean) => void): void {
    this.due = true;
    if (onEnded !== undefined) this.requested = onEnded;
  }

  /**
   * Called between slices by the deterministic executor (beforeSlice), and every few ms by a run
   * on several threads: starts a due checkpoint unless one is in flight.
   * Returns whether a checkpoint is in flight.
   */
  poll(): boolean {
    if (!this.due || this.current !== undefined || this.stopped) return this.current !== undefined;
    if (this.participants.allFinished()) return false;
    this.due = false;
    const onEnded = this.requested;
    this.requested = undefined;
    this.begin(this.inFlight(this.nextId++, new Date(), { final: false, onEnded }));
    return true;
  }

  /**
   * The end of a bounded job, every subtask finished (FLIP-147's final checkpoint): once the one in
   * flight has settled, checkpoint n is taken of what the subtasks hold at the end (their
   * sources have nothing left to read, their sinks hand over what they wrote since the last
   * one), its metadata says `finished`, and its completion commits the sinks' last output. So a
   * kill after that commit, or a restore of the finished run, finds the commit in a checkpoint:
   * the restore makes it again where it was not made (idempotently) and runs nothing. `drive`
   * runs the subtasks until they have taken their snapshots (on several threads they do so on
   * their own). Whether it completed; when not (a checkpoint folder that refuses files), the run
   * commits at its end without one, as a job without checkpoints does.
   */
  async takeFinal(drive: () => Promise<void>): Promise<boolean> {
    await this.current?.settled;
    if (this.stopped || this.current !== undefined) return false;
    // A stop asked for meanwhile is answered by the end itself.
    this.due = false;
    this.requested = undefined;
    const checkpoint = this.inFlight(this.nextId++, new Date(), { final: true, onEnded: undefined });
    this.begin(checkpoint);
    await drive();
    await checkpoint.settled;
    return this.completed.includes(checkpoint.id);
  }

  private begin(checkpoint: InFlight): void {
    this.current = checkpoint;
    this.participants.trigger(checkpoint.id);
  }

  private inFlight(id: number, triggeredAt: Date, how: Pick<InFlight, 'final' | 'onEnded'>): InFlight {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    return {
      id,
      triggeredAt,
      started: performance.now(),
      acks: new Map(),
      settled,
      settle,
      dropped: false,
      ...how,
    };
  }

  acknowledge(ordinal: number, checkpointId: number, ack: Promise<SubtaskAck>): void {
    const current = this.current;
    if (current === undefined || current.id !== checkpointId) {
      ack.catch(() => {});
      return;
    }
    // A failure is reported once every subtask has acknowledged; until then this only marks it
    // handled, so that a file that could not be written fails the checkpoint, not the process.
    ack.catch(() => {});
    current.acks.set(ordinal, ack);
    if (current.acks.size === this.participants.count) void this.finish(current);
  }

  /**
   * Time travel: whether progress() can be taken: no checkpoint in flight, one no subtask has
   * snapshotted yet, or one every subtask has (only its files are still being written).
   */
  get canSaveProgress(): boolean {
    const acks = this.current?.acks.size ?? 0;
    return acks === 0 || acks === this.participants.count;
  }

  /** A checkpoint has started and some subtask has not taken its snapshot yet. */
  get barriersInFlight(): boolean {
    return this.current !== undefined && this.current.acks.size < this.participants.count;
  }

  /** Resolves once no checkpoint is in flight (never while barriersInFlight: that takes steps). */
  async settled(): Promise<void> {
    await this.current?.settled;
  }

  /**
   * Debug runs going back in time: drops the checkpoint whose barriers are still on their way,
   * once the snapshots already taken have written their files. The subtasks must have given it
   * up first (a loop head's snapshot waits for its barrier to come back round).
   */
  async abandonInFlight(): Promise<void> {
    const current = this.current;
    if (current === undefined) return;
    current.dropped = true;
    this.current = undefined;
    await Promise.allSettled(current.acks.values());
    current.settle();
  }

  progress(): CoordinatorProgress {
    const current = this.current;
    // Every snapshot taken: the steps are past it, whatever its files do (a restore waits for them).
    const taken = current !== undefined && current.acks.size === this.participants.count;
    return {
      nextId: this.nextId,
      due: this.due,
      completed: this.completed.length + (taken ? 1 : 0),
      started:
        current === undefined || taken ? undefined : { id: current.id, triggeredAt: current.triggeredAt },
    };
  }

  /**
   * Debug runs: back to an earlier point, once the checkpoint in flight has been given up. The
   * checkpoints completed since are undone: their metadata goes (their ids will be taken again),
   * so that none of them counts as the newest when old files are let go.
   */
  async rewind(progress: CoordinatorProgress): Promise<void> {
    // (One counted as completed when its snapshots were all taken may have failed writing its files.)
    const undone = this.completed.splice(Math.min(this.completed.length, progress.completed));
    for (const id of undone) await this.storage.forget(id);
    this.nextId = progress.nextId;
    this.due = progress.due;
    this.stopped = false;
    const started = progress.started;
    this.current =
      started === undefined
        ? undefined
        : this.inFlight(started.id, started.triggeredAt, { final: false, onEnded: undefined });
  }

  /** The checkpoint in flight, settled; none may start after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.current?.settled;
  }

  /** The job failed: the checkpoint in flight can never complete; none starts after it. */
  abandon(): void {
    this.stopped = true;
    this.abandoned = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    const current = this.current;
    this.current = undefined;
    current?.settle();
  }

  private async finish(checkpoint: InFlight): Promise<void> {
    const base = {
      type: 'checkpoint' as const,
      id: checkpoint.id,
      triggeredAt: checkpoint.triggeredAt.toISOString(),
    };
    let acks: { ordinal: number; ack: SubtaskAck }[];
    try {
      acks = await Promise.all(
        [...checkpoint.acks].map(async ([ordinal, ack]) => ({ ordinal, ack: await ack })),
      );
      if (checkpoint.dropped) return;
      acks.sort((a, b) => a.ordinal - b.ordinal);
      // What each sink commits when this checkpoint completes (a restore redoes it).
      const sinks: SinkCommit[] = [];
      for (const { operatorId, committer } of this.sinks) {
        const committables = acks.flatMap(({ ack }) =>
          ack.snapshot.operator === operatorId && ack.snapshot.committable !== undefined
            ? [ack.snapshot.committable]
            : [],
        );
        const commit = await committer.prepare(checkpoint.id, committables);
        if (checkpoint.dropped) return;
        if (commit !== undefined) sinks.push({ operator: operatorId, ...commit });
      }
      const metadata: CheckpointMetadata = {
        format: CHECKPOINT_FORMAT,
        id: checkpoint.id,
        job: this.job.name,
        maxParallelism: this.plan.maxParallelism,
        stateBackend: this.job.settings.stateBackend,
        triggeredAt: base.triggeredAt,
        completedAt: new Date().toISOString(),
        operators: this.operatorRecords(acks),
        subtasks: acks.map((a) => a.ack.snapshot),
        sinks,
        ...(checkpoint.final ? { finished: true } : {}),
      };
      if (this.abandoned) throw new Error('the job failed before the checkpoint completed');
      await this.storage.writeMetadata(metadata);
      // The checkpoint is complete once its metadata is written, so older ones go now, before
      // the commit: a commit that fails (a full disk) is redone by the next checkpoint or a
      // restore from this one, and must not keep every checkpoint after it (nor the space they
      // hold). Old files that cannot be deleted now are by a later checkpoint.
      await this.storage
        .retain(this.job.settings.checkpointsRetained, checkpoint.id, this.pinned)
        .catch(() => {});
      for (const { operatorId, committer } of this.sinks) {
        const commit = sinks.find((c) => c.operator === operatorId);
        if (commit !== undefined) await committer.commit(commit);
      }
      this.completed.push(checkpoint.id);
      this.onEvent?.({
        ...base,
        status: 'completed',
        durationMs: performance.now() - checkpoint.started,
        bytes: acks.reduce((n, a) => n + a.ack.persistedBytes, 0),
        fullBytes: acks.reduce((n, a) => n + a.ack.fullBytes, 0),
        inFlightRecords: acks.reduce((n, a) => n + a.ack.inFlightRecords, 0),
        subtasks: acks.map(({ ack }) => ({
          operator: ack.snapshot.operator,
          subtask: ack.snapshot.subtask,
          bytes: ack.persistedBytes,
          fullBytes: ack.fullBytes,
          syncMs: ack.syncMs,
          asyncMs: ack.asyncMs,
          alignmentMs: ack.alignmentMs,
        })),
      });
      this.participants.complete(checkpoint.id);
      checkpoint.onEnded?.(true);
    } catch (error) {
      this.onEvent?.({
        ...base,
        status: 'failed',
        reason: (error as Error).message,
        durationMs: performance.now() - checkpoint.started,
        bytes: 0,
        fullBytes: 0,
        inFlightRecords: 0,
        subtasks: [],
      });
      checkpoint.onEnded?.(false);
    } finally {
      // A dropped one may finish after the next has started.
      if (this.current === checkpoint) this.current = undefined;
      checkpoint.settle();
    }
  }

  private operatorRecords(acks: { ordinal: number; ack: SubtaskAck }[]): OperatorRecord[] {
    // A source's position is state too: dropping it would read its input again. Gathered once:
    // looking through every ack per operator made a checkpoint of a big job quadratic in it.
    const stateful = new Set<string>();
    for (const { ack } of acks) {
      const { snapshot } = ack;
      if ((snapshot.state?.entries ?? 0) > 0 || (snapshot.splits?.length ?? 0) > 0)
        stateful.add(snapshot.operator);
    }
    return this.plan.operators.map((op) => ({
      id: op.id,
      kind: op.operator.kind,
      parallelism: op.parallelism,
      keys: op.inputs
        .filter((e) => e.partition === 'hash')
        .map((e) => e.keyPaths.map((p) => p.join('.')).join(',')),
      stateful: stateful.has(op.id),
    }));
  }
}
