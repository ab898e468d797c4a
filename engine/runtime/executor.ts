// What runs a job's subtasks. The deterministic executor (one thread, a fixed order) runs debug
// runs, whose steps, step back and traces must be exact, and runs on one thread; a parallel one
// spreads subtasks over threads. Either way a subtask sees only its gate, its emitter's channels
// and its mailbox, and everything that crosses between subtasks is plain data.

export interface Executor {
  /** Runs until every subtask has finished, or halt(). */
  run(): Promise<void>;
  /** Ends the run at the next slice boundary, without draining. */
  halt(): void;
  readonly halted: boolean;
  /** Sources stop; the records already out still flow to the sinks. */
  requestStop(): void;
  readonly stopRequested: boolean;
  /**
   * Holds the run at the next slice boundary: no subtask runs and no checkpoint starts until
   * resume(). Resolves once the run is held there, has ended, or was resumed first.
   */
  pause(): Promise<void>;
  resume(): void;
  readonly paused: boolean;
}

/** Who takes part in a checkpoint, as the coordinator reaches them (by mail, on their threads). */
export interface CheckpointParticipants {
  /** How many acknowledgements complete a checkpoint. */
  readonly count: number;
  /** Every subtask has finished: no checkpoint can start. */
  allFinished(): boolean;
  /** Starts checkpoint `id` at every subtask. */
  trigger(checkpointId: number): void;
  /** Checkpoint `id` is complete: every subtask hears it. */
  complete(checkpointId: number): void;
}
