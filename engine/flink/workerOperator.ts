// One subtask of a map, filter, flatMap or process operator, run for the Flink runner: the local
// engine's own logic (operators/userFunctions.ts) and ctx (operators/userContext.ts), in an
// environment whose emitter collects the batch's records and whose keyed state is the batch's
// cache over the runner's state. Each record goes through LogicCalls as a local subtask's does,
// so what user code sees, and the one line a failure becomes, are the local engine's.
import { keyPathsOf, type PlannedEdge, type PlannedOperator } from '../graph/plan.js';
import type { Operator, Partition } from '../graph/schema.js';
import { compileOperatorFunctions, userFunctionLogics } from '../operators/userFunctions.js';
import { type Envelope, envelope } from '../runtime/envelope.js';
import { escapedRejectionError } from '../runtime/escapedRejections.js';
import { LogicCalls } from '../runtime/logicCalls.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { NO_WATERMARK, type TimerService } from '../runtime/timers.js';
import { KeyedState } from '../state/keyedState.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { BatchOutputs } from './batchOutputs.js';
import { BatchState, type StateReader, type StateWrite } from './batchState.js';
import type { BatchRecord, OpenMessage, Output } from './pipeMessages.js';

/** The environment's parts that change per record. */
interface WorkerEnvironment extends SubtaskEnvironment {
  current: Envelope | undefined;
  input: string | undefined;
}

/**
 * Timers of a keyed operator: not yet on Flink (they need the runner's timer service). Thrown
 * from user code's call, so the failure names the operator and subtask as any other does.
 * Unkeyed operators keep the local engine's refusal (every input must be hash-partitioned).
 */
const NO_TIMERS: TimerService = {
  register: () => {
    throw new Error('ctx.timers cannot run on Flink yet');
  },
  delete: () => {
    throw new Error('ctx.timers cannot run on Flink yet');
  },
  count: 0,
};

export class WorkerOperator {
  private constructor(
    private readonly env: WorkerEnvironment,
    private readonly calls: LogicCalls,
    private readonly outputs: BatchOutputs,
    private readonly state: BatchState,
  ) {}

  /**
   * Compiles the operator's code (as the local engine does, in a Compartment of its own) and
   * opens its logic. Throws the local engine's words when the code does not compile.
   */
  static async open(open: OpenMessage, reader: StateReader): Promise<WorkerOperator> {
    const { operator, subtask, parallelism, maxParallelism, keyed } = open;
    const Logic = Object.hasOwn(userFunctionLogics, operator.kind)
      ? userFunctionLogics[operator.kind as keyof typeof userFunctionLogics]
      : undefined;
    if (Logic === undefined) {
      throw new Error(`operator "${operator.id}": kind ${operator.kind} does not run in a Flink worker`);
    }
    const functions = compileOperatorFunctions(operator as Operator);
    const planned: PlannedOperator = {
      id: operator.id,
      operator: operator as Operator,
      parallelism,
      order: 0,
      inputs: open.inputs.map(
        (input): PlannedEdge => ({
          id: input.id,
          from: '',
          fromPort: 'out',
          to: operator.id,
          partition: input.partition as Partition,
          keyPaths: keyPathsOf({ key: input.key as string | string[] | undefined }),
          compositeKey: Array.isArray(input.key),
          feedback: false,
        }),
      ),
      outputs: new Map(),
      keyed,
      loopHead: false,
      transactional: false,
    };
    const state = new BatchState(reader);
    const outputs = new BatchOutputs(subtask, maxParallelism);
    const env: WorkerEnvironment = {
      operator: planned,
      subtask,
      parallelism,
      jobDir: '',
      emitter: outputs,
      // The KeyedState's own store stays empty: `instrument` hands user code the batch's cache
      // instead, hardened as KeyedState hardens every api (state/keyedState.ts).
      state: keyed ? new KeyedState(new MemoryKvStore(), () => state.api) : undefined,
      current: undefined,
      input: undefined,
      maxParallelism,
      // The pipe carries no event time yet: ctx.watermark is the local "none yet".
      watermark: NO_WATERMARK,
      timers: keyed ? NO_TIMERS : undefined,
      checkpoints: undefined,
    };
    const logic = new Logic(env, functions);
    await logic.open();
    return new WorkerOperator(env, new LogicCalls(planned, subtask, logic, undefined, 0), outputs, state);
  }

  /**
   * The failure a promise the code rejected and left unhandled becomes, in the local engine's
   * words (runtime/escapedRejections.ts): this subtask's, since its code is all the worker runs.
   */
  escapedFailure(reason: unknown): string {
    return escapedRejectionError(reason, { owner: this.calls, envelope: undefined }).message;
  }

  /**
   * Runs a batch's records in order, awaiting each; its records out and state writes. Throws
   * the local engine's one-line failure (a JobError) at the first record that fails.
   */
  async runBatch(records: readonly BatchRecord[]): Promise<{ out: Output[]; writes: readonly StateWrite[] }> {
    const env = this.env;
    const keyed = env.operator.keyed;
    this.state.beginBatch();
    this.outputs.take();
    try {
      for (let i = 0; i < records.length; i++) {
        const record = records[i]!;
        env.current = envelope(record.r, keyed ? record.k : undefined, 0, undefined, undefined, i);
        env.input = record.e;
        if (keyed) this.state.setRecord(i, record.k, record.s);
        const pending = this.calls.process(env.current);
        if (pending !== undefined) await pending;
      }
    } finally {
      env.current = undefined;
      env.input = undefined;
    }
    return { out: this.outputs.take(), writes: this.state.writes() };
  }
}
