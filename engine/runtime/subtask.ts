// One parallel instance of an operator: its input channels, its emitter, its state, and the
// kind's logic. The scheduler gives it slices of work; within a slice it takes records from its
// inputs in a fixed order, so a run is reproducible delivery by delivery.
import type { PlannedOperator } from '../graph/plan.js';
import { describeUserThrow } from '../sandbox/userCode.js';
import type { KeyedState, StateSize } from '../state/keyedState.js';
import type { KvStore } from '../state/kvStore.js';
import type { Channel, InputCounter } from './channel.js';
import type { Emitter } from './emitter.js';
import { EndOfStream, Envelope } from './envelope.js';
import { JobError } from './jobError.js';
import type { OperatorLogic, SubtaskEnvironment } from './operatorLogic.js';

export type SubtaskPhase =
  /** Taking records. */
  | 'running'
  /** A loop head whose regular inputs have ended: it ends when the whole job is quiet. */
  | 'awaitingLoop'
  /** A loop head told that input ended; records still come round the loop. */
  | 'drainingLoop'
  | 'finished';

export type DeliveryObserver = (subtask: Subtask, channel: Channel, envelope: Envelope) => void;

export class Subtask implements SubtaskEnvironment {
  readonly label: string;
  readonly parallelism: number;
  readonly isSource: boolean;
  current: Envelope | undefined;
  phase: SubtaskPhase = 'running';
  recordsIn = 0;
  logic!: OperatorLogic;
  observer: DeliveryObserver | undefined;
  private readonly feedbackInputs: number;
  private readonly regularInputs: number;
  private regularEnded = 0;
  /** Rotates which regular input is read first, so a union is fair. */
  private rotation = 0;
  private sourceExhausted = false;
  private stopRequested = false;

  constructor(
    readonly operator: PlannedOperator,
    readonly subtask: number,
    readonly jobDir: string,
    /** Feedback channels first: draining the loop before taking new input keeps it short. */
    readonly inputs: readonly Channel[],
    readonly emitter: Emitter,
    readonly state: KeyedState | undefined,
    readonly store: KvStore | undefined,
    /** Shared with the input channels, which count what they hold. */
    readonly inputCounter: InputCounter,
  ) {
    this.parallelism = operator.parallelism;
    this.label = `${operator.id}#${subtask}`;
    this.isSource = operator.operator.kind.startsWith('source.');
    this.feedbackInputs = inputs.filter((c) => c.edge.feedback).length;
    this.regularInputs = inputs.length - this.feedbackInputs;
  }

  runnable(): boolean {
    if (this.phase === 'finished') return false;
    if (this.isSource) return !this.sourceExhausted && this.emitter.canSend();
    return this.inputCounter.queued > 0 && this.emitter.canSend();
  }

  /** An operator with no inputs at all (not a source) has nothing to wait for. */
  get idleFromStart(): boolean {
    return !this.isSource && this.inputs.length === 0;
  }

  stateSize(): StateSize | undefined {
    return this.state?.stateSize();
  }

  /** Sources stop producing; what they emitted still flows to the end. */
  requestStop(): void {
    this.stopRequested = true;
  }

  runSlice(budget: number): Promise<void> | undefined {
    const pending = this.isSource ? this.produceSlice(budget) : this.consumeSlice(budget);
    if (pending !== undefined) return pending.then(() => this.store?.maybeFlush());
    return this.store?.maybeFlush();
  }

  private produceSlice(budget: number): Promise<void> | undefined {
    if (this.stopRequested) return this.exhaust();
    let produced: number | Promise<number>;
    try {
      produced = this.logic.produce(budget);
    } catch (error) {
      throw this.failure(error);
    }
    if (typeof produced === 'number') return this.afterProduce(produced);
    return produced.then(
      (count) => this.afterProduce(count),
      (error) => {
        throw this.failure(error);
      },
    );
  }

  private afterProduce(count: number): Promise<void> | undefined {
    if (count < 0) return this.exhaust();
    this.recordsIn += count;
    return undefined;
  }

  private exhaust(): Promise<void> | undefined {
    this.sourceExhausted = true;
    return this.endInput();
  }

  private consumeSlice(budget: number): Promise<void> | undefined {
    const inputs = this.inputs;
    let left = budget;
    for (let i = 0; i < inputs.length && left > 0; i++) {
      const index =
        i < this.feedbackInputs
          ? i
          : this.feedbackInputs + ((i - this.feedbackInputs + this.rotation) % this.regularInputs);
      const channel = inputs[index]!;
      while (left > 0) {
        const item = channel.shift();
        if (item === undefined) break;
        left--;
        if (!(item instanceof Envelope)) {
          const pending = this.channelEnded(channel);
          if (pending !== undefined) return pending;
          continue;
        }
        channel.delivered++;
        const pending = this.deliver(channel, item);
        if (pending !== undefined) return pending;
        if (this.emitter.blocked && !this.emitter.canSend()) return undefined;
      }
    }
    this.rotation++;
    return undefined;
  }

  private deliver(channel: Channel, envelope: Envelope): Promise<void> | undefined {
    if (this.phase === 'finished') {
      throw new JobError(
        `internal: a record reached operator "${this.operator.id}" over edge "${channel.edge.id}" after its input had ended`,
        this.operator.id,
        this.subtask,
      );
    }
    this.recordsIn++;
    this.current = envelope;
    const lineage = this.emitter.lineage;
    lineage.timestamp = envelope.timestamp;
    lineage.source = envelope.source;
    lineage.position = envelope.position;
    this.state?.setKey(envelope.keyGroup, envelope.key);
    this.observer?.(this, channel, envelope);
    let pending: void | Promise<void>;
    try {
      pending = this.logic.process(envelope);
    } catch (error) {
      throw this.failure(error, envelope);
    }
    if (pending === undefined) return undefined;
    return pending.catch((error) => {
      throw this.failure(error, envelope);
    });
  }

  private channelEnded(channel: Channel): Promise<void> | undefined {
    if (channel.edge.feedback) return undefined;
    this.regularEnded++;
    if (this.regularEnded < this.regularInputs) return undefined;
    if (this.operator.loopHead) {
      this.phase = 'awaitingLoop';
      return undefined;
    }
    return this.endInput();
  }

  /** Regular input is over: let the logic finish, then close the outputs. */
  endInput(): Promise<void> | undefined {
    const pending = this.tellInputEnded();
    if (pending !== undefined) return pending.then(() => this.closeOutputs());
    this.closeOutputs();
    return undefined;
  }

  /** Called by the scheduler on a quiet job: the loop's records are all delivered. */
  tellInputEnded(): Promise<void> | undefined {
    if (this.phase === 'awaitingLoop') this.phase = 'drainingLoop';
    this.current = undefined;
    let pending: void | Promise<void>;
    try {
      pending = this.logic.endInput();
    } catch (error) {
      throw this.failure(error);
    }
    return pending?.catch((error) => {
      throw this.failure(error);
    });
  }

  closeOutputs(): void {
    this.phase = 'finished';
    for (const channel of this.emitter.allChannels) channel.push(EndOfStream.instance);
  }

  /**
   * After the job: a loop head finishes before the end-of-stream comes back round its feedback
   * edges, so those markers are still queued. Anything else left over would be a lost record.
   */
  takeFinalEndsOfStream(): void {
    for (const channel of this.inputs) {
      for (let item = channel.shift(); item !== undefined; item = channel.shift()) {
        if (item instanceof Envelope) {
          throw new JobError(`internal: a record was left on edge "${channel.edge.id}" when the job ended`);
        }
      }
    }
  }

  /** Turns anything thrown while this subtask worked into a message a user can act on. */
  failure(error: unknown, envelope?: Envelope): JobError {
    if (error instanceof JobError && error.operatorId !== undefined) return error;
    const where = `operator "${this.operator.id}"${this.parallelism > 1 ? ` (subtask ${this.subtask} of ${this.parallelism})` : ''}`;
    const from = envelope?.source ? ` on the record from ${envelope.source.describe(envelope.position)}` : '';
    let detail: string;
    if (error instanceof JobError) {
      detail = error.message;
    } else {
      // The sandbox words it as `operator "id": <what> at line N of its code: <why>`.
      const prefix = `operator "${this.operator.id}": `;
      const { message } = describeUserThrow(error, this.operator.id);
      detail = message.startsWith(prefix) ? message.slice(prefix.length) : message;
    }
    return new JobError(`${where} failed${from}: ${detail}`, this.operator.id, this.subtask);
  }
}
