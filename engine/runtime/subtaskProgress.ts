// A subtask between two steps of a debug run, as data: what time travel saves and puts back.
import type { StateSize } from '../state/keyedState.js';
import type { TimerProgress } from '../state/timerStore.js';
import type { EmitterProgress } from './emitter.js';
import type { Envelope } from './envelope.js';
import type { GateProgress } from './inputGate.js';
import type { InputProgress } from './inputProcessor.js';
import type { SourceTimeState } from './sourceWatermarks.js';
import type { CheckpointProgress } from './subtaskCheckpointCoordinator.js';
import type { SubtaskPhase } from './subtaskOptions.js';
import type { SubtaskTimeState } from './subtaskTime.js';

/**
 * A subtask between two steps of a debug run, as data (time travel). Only taken while no
 * checkpoint has reached it beyond being started: nothing is aligned, held back or logged.
 */
export interface SubtaskProgress {
  readonly phase: SubtaskPhase;
  readonly current: Envelope | undefined;
  readonly gate: GateProgress;
  readonly input: InputProgress;
  readonly checkpoints: CheckpointProgress;
  readonly emitter: EmitterProgress;
  readonly logic: unknown;
  readonly stateSize: StateSize | undefined;
  readonly time: TimeProgress;
}

/** A subtask's time between two steps of a debug run. */
interface TimeProgress {
  readonly valve: SubtaskTimeState;
  readonly newestRecord: number;
  /** Where a logic holds records back: the last watermark it let go downstream. */
  readonly forwarded: number;
  readonly timers: TimerProgress | undefined;
  readonly source: SourceTimeState | undefined;
}
