// How a subtask calls into its logic: each call is marked for the thread that can stop this one
// (see callMarker.ts), stays marked while a promise it returned is pending, and anything it
// throws becomes one line a user can act on, naming the operator, the subtask and the record.

import { JobError } from '../graph/jobError.js';
import type { PlannedOperator } from '../graph/plan.js';
import { describeUserThrow } from '../sandbox/userCode.js';
import type { MaybePromise } from '../state/maybePromise.js';
import type { CallMarker, CallOwner } from './callMarker.js';
import type { Envelope } from './envelope.js';
import type { OperatorLogic } from './operatorLogic.js';
import { RecordFailure } from './recordFailure.js';
import { describeRecordSource } from './recordSource.js';
import type { FiredTimer } from './timers.js';
import { describeTime } from './timeWords.js';

export class LogicCalls implements CallOwner {
  constructor(
    readonly operator: PlannedOperator,
    private readonly subtask: number,
    private readonly logic: OperatorLogic,
    /** Given only where the operator runs user code: a file connector never holds its thread. */
    private readonly marker: CallMarker | undefined,
    /** The subtask's index among the run's, as the marker names it. */
    private readonly ordinal: number,
  ) {}

  /** One record; a promise only when the call went asynchronous. */
  process(envelope: Envelope): MaybePromise {
    let pending: void | Promise<void> | undefined;
    this.marker?.enter(this.ordinal, this, 'process', envelope);
    try {
      pending = this.logic.process(envelope);
    } catch (error) {
      throw this.failure(error, envelope);
    } finally {
      this.leave(pending);
    }
    if (pending === undefined) return undefined;
    return this.settled(pending).catch((error) => {
      throw this.failure(error, envelope);
    });
  }

  /** A source's records: how many, or -1 once it is exhausted. */
  produce(limit: number): number | Promise<number> {
    let produced: number | Promise<number> = 0;
    this.marker?.enter(this.ordinal, this, 'produce', undefined);
    try {
      produced = this.logic.produce(limit);
    } catch (error) {
      throw this.failure(error);
    } finally {
      this.leave(produced);
    }
    if (typeof produced === 'number') return produced;
    return this.settled(produced).catch((error) => {
      throw this.failure(error);
    });
  }

  /** A timer fired (state is scoped to its key). */
  onTimer(timer: FiredTimer): MaybePromise {
    const logic = this.logic;
    if (logic.onTimer === undefined) return undefined;
    let pending: void | Promise<void> | undefined;
    const context = () =>
      `onTimer (${timer.domain === 'eventTime' ? 'event' : 'processing'}-time timer ${describeTime(timer.timestamp)}, key ${JSON.stringify(timer.key)})`;
    this.marker?.enter(this.ordinal, this, 'onTimer', undefined);
    try {
      pending = logic.onTimer(timer);
    } catch (error) {
      throw this.failure(error, undefined, context());
    } finally {
      this.leave(pending);
    }
    if (pending === undefined) return undefined;
    return this.settled(pending).catch((error) => {
      throw this.failure(error, undefined, context());
    });
  }

  endInput(): MaybePromise {
    let pending: void | Promise<void> | undefined;
    this.marker?.enter(this.ordinal, this, 'endInput', undefined);
    try {
      pending = this.logic.endInput();
    } catch (error) {
      throw this.failure(error);
    } finally {
      this.leave(pending);
    }
    if (pending === undefined) return undefined;
    return this.settled(pending).catch((error) => {
      throw this.failure(error);
    });
  }

  /** After a call returned (or threw): a promise it returned keeps the call open (settled()). */
  private leave(result: unknown): void {
    if (!(result instanceof Promise)) this.marker?.leave();
  }

  /**
   * A call's promise: the marker shows the call as pending until it settles, even once other
   * calls have come after it (its subtask set aside, the thread's others going on).
   */
  private settled<T>(pending: Promise<T>): Promise<T> {
    const marker = this.marker;
    if (marker === undefined) return pending;
    const call = marker.awaiting();
    return pending.finally(() => marker.settled(call));
  }

  /** Turns anything thrown while the subtask worked into a message a user can act on. */
  failure(error: unknown, envelope?: Envelope, context?: string): JobError {
    if (error instanceof RecordFailure) return this.failure(error.failed, error.envelope, context);
    if (error instanceof JobError && error.operatorId !== undefined) return error;
    const { id, parallelism } = this.operator;
    const where = `operator "${id}"${parallelism > 1 ? ` (subtask ${this.subtask} of ${parallelism})` : ''}`;
    const from = envelope?.source
      ? ` on the record from ${describeRecordSource(envelope.source, envelope.position)}`
      : '';
    let detail: string;
    if (error instanceof JobError) {
      detail = error.message;
    } else {
      // The sandbox words it as `operator "id": <what> at line N of its code: <why>`.
      const prefix = `operator "${id}": `;
      const { message } = describeUserThrow(error, id);
      detail = message.startsWith(prefix) ? message.slice(prefix.length) : message;
    }
    const why = context === undefined ? detail : `${context}: ${detail}`;
    return new JobError(`${where} failed${from}: ${why}`, id, this.subtask);
  }
}
