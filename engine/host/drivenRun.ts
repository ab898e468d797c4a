// What the run service drives, whichever the mode: a run (hostRun.ts, JobRun as the CLI runs it)
// or a debug run (debugRun.ts, the debugger's DebugSession). The service knows only this.
import type { CheckpointEvent } from '../checkpoint/checkpointCoordinator.js';
import type { Job } from '../graph/schema.js';
import type { RunDirs } from '../runtime/runDirs.js';
import type { KvStore } from '../state/kvStore.js';
import type {
  RunCheckpointEvent,
  RunEvents,
  RunInfo,
  RunMetricsEvent,
  RunMode,
  RunStatus,
} from './runProtocol.js';

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
  liveStore(operatorId: string, subtask: number): KvStore | undefined;
  /** Why the state of this run cannot be read live now, when it cannot; undefined when it can. */
  liveStateUnavailable(): string | undefined;
  /** Resolves once the run has let go of its state folder (it may be read from disk then). */
  readonly released: Promise<void>;
  /** Lets go of whatever an ended run still holds (a debug session kept for stepping back). */
  dispose(): Promise<void>;
}

/** Statuses after which the run does not go on by itself. */
export function isEnded(status: RunStatus): boolean {
  return status === 'finished' || status === 'failed' || status === 'stopped';
}

export function checkpointEventOf(runId: string, event: CheckpointEvent): RunCheckpointEvent {
  const { type: _type, ...rest } = event;
  return { runId, ...rest };
}
