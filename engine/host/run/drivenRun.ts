// What the run service drives, whichever the mode: a run (hostRun.ts, the job as the CLI runs it)
// or a debug run (debugRun.ts, the debugger's DebugSession). The service knows only this.
import type { CheckpointEvent } from '../../checkpoint/checkpointCoordinator.js';
import type { RunDirs } from '../../deploy/runDirs.js';
import type { Job } from '../../graph/schema.js';
import type {
  RunCheckpointEvent,
  RunEvents,
  RunInfo,
  RunMetricsEvent,
  RunMode,
  RunStatus,
} from '../../protocol/runProtocol.js';
import type { CallMarker } from '../../runtime/callMarker.js';
import type { KvStore } from '../../state/kvStore.js';

/**
 * What the state browser reads of a live run's subtask: a store's raw entries. A run on several
 * threads has its stores open on its workers, and gives this much of them by message.
 */
export type LiveState = Pick<KvStore, 'browse'>;

/** Where a run's events go (the host service sends them to every client). */
export interface RunEventSink {
  status(info: RunInfo): void;
  metrics(event: RunMetricsEvent): void;
  checkpoint(event: RunCheckpointEvent): void;
  output(event: RunEvents['run.output']): void;
  step(event: RunEvents['run.step']): void;
}

export interface DrivenRun {
  readonly runId: string;
  readonly mode: RunMode;
  readonly job: Job;
  readonly dirs: RunDirs;
  /** Starting, running or paused: another run may not start. */
  readonly active: boolean;
  info(): RunInfo;
  pause(): Promise<RunInfo>;
  resume(): Promise<RunInfo>;
  /** Ends the run; resolves with its last status. */
  stop(): Promise<RunInfo>;
  /** A subtask's open state store, while the run has one to read. */
  liveStore(operatorId: string, subtask: number): LiveState | undefined;
  /** Why the state of this run cannot be read live now, when it cannot; undefined when it can. */
  liveStateUnavailable(): string | undefined;
  /**
   * Why none of this run's state, live or checkpointed, is on this machine (a run on Flink);
   * undefined for a local run. Its job's local checkpoints are another run's, not this one's.
   */
  readonly stateElsewhere?: string;
  /** Resolves once the run has let go of its state folder (it may be read from disk then). */
  readonly released: Promise<void>;
  /** Lets go of whatever an ended run still holds (a debug session kept for stepping back). */
  dispose(): Promise<void>;
}

/** What a run is given whatever its mode. */
export interface RunBasics {
  readonly runId: string;
  readonly job: Job;
  readonly dirs: RunDirs;
  /** The job is not trusted: see RunOptions.confined. */
  readonly confined: boolean;
  /** Shown with the first status (e.g. which checkpoint was chosen). */
  readonly note?: string;
  /** The checkpoint the run goes on from, if it does not start at the beginning. */
  readonly restoredFrom?: number;
  readonly events: RunEventSink;
  /** Marks each call into an operator (JobRun's RunOptions.callMarker). */
  readonly callMarker?: CallMarker;
}

/** Who a run is and the status it reports, the same for both modes. */
export abstract class StatusReportingRun {
  abstract readonly mode: RunMode;
  protected status: RunStatus = 'starting';
  protected message: string | undefined;

  protected constructor(private readonly basics: RunBasics) {
    this.message = basics.note;
  }

  get runId(): string {
    return this.basics.runId;
  }

  get job(): Job {
    return this.basics.job;
  }

  get dirs(): RunDirs {
    return this.basics.dirs;
  }

  get active(): boolean {
    return !isEnded(this.status);
  }

  /** Steps taken so far; a run that does not step reports 0. */
  protected abstract stepsTaken(): number;

  info(): RunInfo {
    return {
      runId: this.basics.runId,
      status: this.status,
      mode: this.mode,
      step: this.stepsTaken(),
      ...(this.message === undefined ? {} : { message: this.message }),
      ...(this.basics.restoredFrom === undefined ? {} : { restoredFrom: this.basics.restoredFrom }),
      stateDir: this.basics.dirs.stateDir,
      checkpointDir: this.basics.dirs.checkpointDir,
    };
  }

  protected emitStatus(): void {
    this.basics.events.status(this.info());
  }

  protected setStatus(status: RunStatus, message?: string): void {
    this.status = status;
    this.message = message;
    this.emitStatus();
  }
}

/** Statuses after which the run does not go on by itself. */
export function isEnded(status: RunStatus): boolean {
  return status === 'finished' || status === 'failed' || status === 'stopped';
}

export function checkpointEventOf(runId: string, event: CheckpointEvent): RunCheckpointEvent {
  const { type: _type, ...rest } = event;
  return { runId, ...rest };
}
