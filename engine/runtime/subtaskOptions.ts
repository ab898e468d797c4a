// How a subtask is made and run: its phases, the environment its logic gets, the options fixed
// when it is made, and what the debugger can hook into it.

import type { CallMarker } from './callMarker.js';
import type { Channel } from './channel.js';
import type { Envelope } from './envelope.js';
import type { SubtaskEnvironment } from './operatorLogic.js';
import type { Subtask } from './subtask.js';
import type { FiredTimer } from './timers.js';
import type { TransactionTap } from './transactionReport.js';
import type { WaitReport } from './waitReport.js';

export type SubtaskPhase =
  /** Taking records. */
  | 'running'
  /** A loop head whose regular inputs have ended: it ends when the whole job is quiet. */
  | 'awaitingLoop'
  /** A loop head told that input ended; records still come round the loop. */
  | 'drainingLoop'
  | 'finished';

export type DeliveryObserver = (subtask: Subtask, channel: Channel, envelope: Envelope) => void;

/** Debug runs: what a subtask tells of its firings of timers (the debugger makes each timer a step). */
export interface TimerTap {
  /** `timer` fires now: what the subtask does until the next call is this timer's. */
  firing(timer: FiredTimer): void;
  /** The firing is over: what was to follow it (the watermark going on, the end of input) runs now. */
  over(): void;
}

/** The environment a logic is made with; the subtask sets `current` as records arrive. */
export type SubtaskContext = Omit<
  SubtaskEnvironment,
  'current' | 'input' | 'inputChannel' | 'watermark' | 'timers' | 'transactionTap'
> & {
  current: Envelope | undefined;
  input: string | undefined;
  inputChannel?: Channel | undefined;
  transactionTap?: TransactionTap | undefined;
  watermark: number;
  timers: SubtaskEnvironment['timers'];
};

/** How a subtask is run, fixed when it is made. */
export interface SubtaskOptions {
  /** Sees every delivery, in order (tests, the debugger's trace). */
  readonly observer?: DeliveryObserver | undefined;
  /**
   * Says, for another thread to read, which call into the logic is in progress (see
   * callMarker.ts); given only where the operator runs user code.
   */
  readonly callMarker?: CallMarker | undefined;
  /** This subtask's index among the run's, as the call marker and the coordinator name it. */
  readonly ordinal: number;
  /** The plan's key groups: timers are kept per key group. */
  readonly maxParallelism: number;
  /**
   * Debug runs: a slice pauses after every item (see stepSlice), so that a step is one item of
   * the very slices a normal run takes; and every asynchronous call is waited for in place.
   */
  readonly stepping: boolean;
  /**
   * Calls into this logic that stay pending past the job's own microtasks (they wait on the
   * world: a timer, a socket) suspend the subtask, and the others go on meanwhile. Off for
   * logics whose waits are the engine's own bounded file I/O, awaited in place so that the order
   * of deliveries stays the same from run to run.
   */
  readonly suspendsOnWait: boolean;
  /** What the logic said it waits for (env.reportWait writes it), for the run's figures. */
  readonly waitReport?: WaitReport | undefined;
}
