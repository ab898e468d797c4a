// source.generator for the Flink runner (flink/PROTOCOL.md, "A source in the worker"): the
// runner's source reader asks for records by index, as it asks source.nexmark's worker for
// events, and this answers with the local engine's own GeneratorReader making record i: the
// user's generate(i, ctx) compiled and sandboxed as locally, ctx.random reseeded from (seed, i),
// the record copied and its time read as locally. So index i gives the same record on both
// engines, whatever the parallelism, and a failure the same one line.
import type { PlannedOperator } from '../graph/plan.js';
import type { Operator, ParamsOf } from '../graph/schema.js';
import { GeneratorReader } from '../operators/sourceGenerator.js';
import { compileOperatorFunctions } from '../operators/userFunctions.js';
import { escapedRejectionError } from '../runtime/escapedRejections.js';
import { LogicCalls } from '../runtime/logicCalls.js';
import { BaseLogic, type SubtaskEnvironment } from '../runtime/operatorLogic.js';
import { NO_WATERMARK } from '../runtime/timers.js';
import { BatchOutputs } from './batchOutputs.js';
import type { MadeMessage, MakeMessage, OpenMessage } from './pipeMessages.js';

/** The local reader, asked for a range of indexes instead of polled. */
class RangeReader extends GeneratorReader {
  /** Makes records next, next + stride, … (`count` indexes); a promise once one went async. */
  makeRange(next: number, stride: number, count: number): void | Promise<void> {
    for (let k = 0; k < count; k++) {
      const pending = this.make(next + k * stride);
      if (pending !== undefined) {
        const rest = k + 1;
        return pending.then(() => this.makeRange(next + rest * stride, stride, count - rest));
      }
    }
  }
}

/**
 * The range asked for, made as the local subtask's produce() makes records: through LogicCalls,
 * so what generate throws becomes the local engine's line (`operator "gen" (subtask 0 of 2)
 * failed: ...`).
 */
class RangeLogic extends BaseLogic {
  request: MakeMessage | undefined;

  constructor(
    env: SubtaskEnvironment,
    private readonly reader: RangeReader,
  ) {
    super(env);
  }

  override produce(): number | Promise<number> {
    const request = this.request;
    if (request === undefined) return 0;
    const pending = this.reader.makeRange(request.next, request.stride, request.count);
    return pending === undefined ? request.count : pending.then(() => request.count);
  }
}

export class GeneratorMaker {
  private constructor(
    private readonly logic: RangeLogic,
    private readonly calls: LogicCalls,
    private readonly outputs: BatchOutputs,
  ) {}

  /** The failure a promise generate rejected and left unhandled becomes, in the local words. */
  escapedFailure(reason: unknown): string {
    return escapedRejectionError(reason, { owner: this.calls, envelope: undefined }).message;
  }

  /** Compiles generate as the local engine does; throws its words when the code does not compile. */
  static open(open: OpenMessage): GeneratorMaker {
    const operator = open.operator as Operator;
    const planned: PlannedOperator = {
      id: operator.id,
      operator,
      parallelism: open.parallelism,
      order: 0,
      inputs: [],
      outputs: new Map(),
      keyed: false,
      loopHead: false,
      transactional: false,
    };
    const outputs = new BatchOutputs(open.subtask, open.maxParallelism);
    const env: SubtaskEnvironment = {
      operator: planned,
      subtask: open.subtask,
      parallelism: open.parallelism,
      jobDir: '',
      emitter: outputs,
      state: undefined,
      current: undefined,
      input: undefined,
      maxParallelism: open.maxParallelism,
      watermark: NO_WATERMARK,
      timers: undefined,
      checkpoints: undefined,
    };
    const generate = compileOperatorFunctions(operator).main;
    const reader = new RangeReader(env, operator.params as ParamsOf<'source.generator'>, generate);
    const logic = new RangeLogic(env, reader);
    return new GeneratorMaker(logic, new LogicCalls(planned, open.subtask, logic, undefined, 0), outputs);
  }

  /**
   * The records of the indexes asked for (an index whose generate returned null or undefined
   * gives none; a record ctx.emit sent to a port other than `out` is dropped, as locally where
   * no edge can read it), each with its event time or null. Throws the local one-line failure.
   */
  async make(request: MakeMessage): Promise<MadeMessage> {
    this.logic.request = request;
    this.outputs.take();
    const produced = this.calls.produce(request.count);
    if (produced instanceof Promise) await produced;
    const records: string[] = [];
    const times: (number | null)[] = [];
    for (const output of this.outputs.take()) {
      // (null, a watermark's place, is a batch's: a source's worker runs none)
      if (output === null) continue;
      if (typeof output === 'string') {
        records.push(output);
        times.push(null);
      } else if (output[0] === 'out') {
        records.push(output[1]);
        times.push(output.length === 3 ? wholeMs(output[2], this.calls.operator.id) : null);
      }
    }
    return times.some((time) => time !== null) ? { t: 'made', records, times } : { t: 'made', records };
  }
}

/** Flink's record times are whole ms; a fraction (a usable time locally) fails the job in one line. */
function wholeMs(time: number, operatorId: string): number {
  if (Number.isInteger(time)) return time;
  throw new Error(
    `operator "${operatorId}": event time ${time} is not a whole number of ms, which Flink's times are`,
  );
}
