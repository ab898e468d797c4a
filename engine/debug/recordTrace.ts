// Record traces: which input records an output record descends from, and the path it took. Every
// step keeps a small lineage entry (the step that emitted the record it took, the source record
// at the root, the state keys it touched) for the last TRACE_STEPS steps; a trace walks those
// entries back from the output to the source.
import type { TraceView } from '../host/runProtocol.js';
import { SeqWindow } from './seqWindow.js';

/** Lineage is kept for this many of the last steps. */
export const TRACE_STEPS = 100_000;

/** A record as a source read or made it. */
export type TraceInput = TraceView['inputs'][number];

/** Where an emitted record came from: the step and its index among that step's emits. */
export interface Origin {
  readonly seq: number;
  readonly emitted: number;
  readonly input: TraceInput | undefined;
}

export interface StepLineage {
  readonly seq: number;
  readonly operator: string;
  readonly subtask: number;
  /** The emit that made the record this step took (record steps). */
  readonly parent: Origin | undefined;
  /** The source record at the root, shared by every step that descends from it. */
  readonly input: TraceInput | undefined;
  readonly stateKeys: readonly unknown[];
  readonly emitted: number;
  /** A sink's step: its record is an output of the job. */
  readonly sink: boolean;
}

export class RecordTrace {
  private readonly steps = new SeqWindow<StepLineage>(TRACE_STEPS);

  add(lineage: StepLineage): void {
    this.steps.set(lineage.seq, lineage);
  }

  get(seq: number): StepLineage | undefined {
    return this.steps.get(seq);
  }

  truncateAfter(seq: number): void {
    this.steps.truncateAfter(seq);
  }

  /**
   * The record step `seq` emitted at `emitted` (or, at a sink, the record it wrote: index 0):
   * its source input and the steps from that input to it.
   */
  trace(seq: number, emitted: number): TraceView {
    const step = this.steps.get(seq);
    if (step === undefined) {
      throw new Error(
        `step ${seq} is not kept for traces (the last ${TRACE_STEPS.toLocaleString('en')} steps are, from step ${this.steps.oldest})`,
      );
    }
    const ok =
      Number.isInteger(emitted) && emitted >= 0 && (emitted < step.emitted || (step.sink && emitted === 0));
    if (!ok) {
      throw new Error(
        step.sink
          ? `step ${seq} wrote one record at sink "${step.operator}": trace it as output 0`
          : `step ${seq} (operator "${step.operator}") emitted ${step.emitted} record(s); there is no output ${emitted}`,
      );
    }
    const path: TraceView['path'][number][] = [];
    for (let at: StepLineage | undefined = step; at !== undefined; ) {
      path.push({ operator: at.operator, subtask: at.subtask, step: at.seq, stateKeys: at.stateKeys });
      at = at.parent === undefined ? undefined : this.steps.get(at.parent.seq);
    }
    path.reverse();
    return { inputs: step.input === undefined ? [] : [step.input], path };
  }
}
