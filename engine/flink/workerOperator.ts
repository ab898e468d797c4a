// One subtask of a map, filter, flatMap or process operator (or a window's code aggregate,
// windowFires.ts), run for the Flink runner: the local engine's own logic
// (operators/userFunctions.ts) and ctx (operators/userContext.ts), in an
// environment whose emitter collects the batch's records and whose keyed state is the batch's
// cache over the runner's state. Each record goes through LogicCalls as a local subtask's does,
// so what user code sees, and the one line a failure becomes, are the local engine's.
import { keyGroupOf } from '../graph/keyGroups.js';
import { keyPathsOf, type PlannedEdge, type PlannedOperator } from '../graph/plan.js';
import type { Operator, Partition } from '../graph/schema.js';
import { compileOperatorFunctions, userFunctionLogics } from '../operators/userFunctions.js';
import { type Envelope, envelope } from '../runtime/envelope.js';
import { escapedRejectionError } from '../runtime/escapedRejections.js';
import { LogicCalls } from '../runtime/logicCalls.js';
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { NO_WATERMARK, type TimerService } from '../runtime/timers.js';
import { KeyedState } from '../state/keyedState.js';
import type { MaybePromise } from '../state/maybePromise.js';
import { MemoryKvStore } from '../state/memoryKvStore.js';
import { BatchOutputs } from './batchOutputs.js';
import { BatchState, type StateReader, type StateWrite } from './batchState.js';
import { type BatchMessage, type OpenMessage, type Output, watermarkOf } from './pipeMessages.js';
import { windowFiresLogic } from './windowFires.js';

/** The environment's parts that change per record. */
interface WorkerEnvironment extends SubtaskEnvironment {
  current: Envelope | undefined;
  input: string | undefined;
  watermark: number;
}

/**
 * Timers of a keyed operator, as writes of the batch (PROTOCOL.md): the runner registers them in
 * Flink's timer service under the item's key, which dedupes them as the local one does. Unkeyed
 * operators keep the local engine's refusal (every input must be hash-partitioned).
 */
function batchTimers(state: BatchState): TimerService {
  return {
    register: (domain, timestamp) => state.timer(domain === 'eventTime' ? 'te' : 'tp', timestamp),
    delete: (domain, timestamp) => state.timer(domain === 'eventTime' ? 'xe' : 'xp', timestamp),
    // Flink counts them; the worker sees only a batch's.
    count: 0,
  };
}

export class WorkerOperator {
  private constructor(
    private readonly env: WorkerEnvironment,
    private readonly calls: LogicCalls,
    private readonly outputs: BatchOutputs,
    private readonly state: BatchState,
    private readonly maxParallelism: number,
    /** The code has an onTimer: the runner then empties the worker before each watermark. */
    readonly hasOnTimer: boolean,
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
    // A window's code aggregate folds what Flink's window operator sends (windowFires.ts).
    const windowFold = operator.kind === 'window';
    if (Logic === undefined && !windowFold) {
      throw new Error(`operator "${operator.id}": kind ${operator.kind} does not run in a Flink worker`);
    }
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
          // As the local engine's plan has it; ctx.input is the edge's id either way.
          feedback: input.feedback === true,
        }),
      ),
      outputs: new Map(),
      keyed,
      loopHead: open.inputs.some((input) => input.feedback === true),
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
      // Each batch says the operator's watermark (runBatch).
      watermark: NO_WATERMARK,
      timers: keyed ? batchTimers(state) : undefined,
      checkpoints: undefined,
    };
    const functions = Logic === undefined ? undefined : compileOperatorFunctions(operator as Operator);
    const logic =
      Logic === undefined || functions === undefined
        ? windowFiresLogic(env, operator as Operator)
        : new Logic(env, functions);
    await logic.open();
    return new WorkerOperator(
      env,
      new LogicCalls(planned, subtask, logic, undefined, 0),
      outputs,
      state,
      maxParallelism,
      functions?.onTimer !== undefined,
    );
  }

  /**
   * The failure a promise the code rejected and left unhandled becomes, in the local engine's
   * words (runtime/escapedRejections.ts): this subtask's, since its code is all the worker runs.
   */
  escapedFailure(reason: unknown): string {
    return escapedRejectionError(reason, { owner: this.calls, envelope: undefined }).message;
  }

  /**
   * Runs a batch's records and timers in order, awaiting each; its records out and state writes.
   * Throws the local engine's one-line failure (a JobError) at the first item that fails.
   */
  async runBatch(batch: BatchMessage): Promise<{ out: Output[]; writes: readonly StateWrite[] }> {
    const env = this.env;
    const keyed = env.operator.keyed;
    const lineage = this.outputs.lineage;
    const items = batch.records;
    env.watermark = watermarkOf(batch.w);
    this.state.beginBatch();
    this.outputs.take();
    try {
      for (let i = 0; i < items.length; i++) {
        const item = items[i]!;
        let pending: MaybePromise;
        if ('wm' in item) {
          env.watermark = watermarkOf(item.wm);
          this.outputs.watermarkPassed();
          continue;
        }
        if ('timer' in item) {
          // As the local subtask fires one (runtime/inputProcessor.ts): no record, state and ctx.key
          // the timer's key, and an event-time timer's time on what it emits.
          const eventTime = item.timer === 'e';
          env.current = undefined;
          env.input = undefined;
          lineage.timestamp = eventTime ? item.ts : undefined;
          this.state.setRecord(i, item.k, item.s);
          const keyGroup = keyGroupOf(item.k, this.maxParallelism);
          env.state?.setKey(keyGroup, item.k);
          pending = this.calls.onTimer({
            domain: eventTime ? 'eventTime' : 'processingTime',
            timestamp: item.ts,
            keyGroup,
            key: item.k,
          });
        } else {
          env.current = envelope(item.r, keyed ? item.k : undefined, 0, item.ts, undefined, i);
          env.input = item.e;
          lineage.timestamp = item.ts;
          if (keyed) this.state.setRecord(i, item.k, item.s);
          pending = this.calls.process(env.current);
        }
        if (pending !== undefined) await pending;
      }
    } finally {
      env.current = undefined;
      env.input = undefined;
      lineage.timestamp = undefined;
    }
    return { out: this.outputs.take(), writes: this.state.writes() };
  }
}
