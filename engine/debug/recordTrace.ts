// Record traces: which input records an output record descends from, and the path it took. Every
// step keeps a small lineage entry (the step that emitted the record it took, the source record
// at the root, the state keys it touched, the state cells it read and wrote) for the last
// TRACE_STEPS steps; a trace walks those entries back from the output to the source, and names
// for each hop the steps that last wrote the state it read.
import { countText } from '../graph/countText.js';
import type { StateSourceView, TraceInputView, TraceView } from '../protocol/runProtocol.js';
import type { RecordSource } from '../runtime/recordSource.js';
import { LineNumbers, recordPlace } from './recordPlace.js';
import { SeqWindow } from './seqWindow.js';
import type { StateRead } from './stateCells.js';

/** Lineage is kept for this many of the last steps. */
export const TRACE_STEPS = 100_000;

/** A record as a source read or made it, and the source it came from (named in the view). */
export type TraceInput = Omit<TraceInputView, 'where'> & { readonly source?: RecordSource };

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
  /** State read before the step wrote it, and the cells it wrote (stateCells.ts). */
  readonly reads: readonly StateRead[];
  readonly writes: readonly string[];
  readonly emitted: number;
  /** A sink's step: its record is an output of the job. */
  readonly sink: boolean;
  /** A record step: it took a record (from `parent`, when that is known). */
  readonly received: boolean;
}

export class RecordTrace {
  private readonly steps = new SeqWindow<StepLineage>(TRACE_STEPS);
  /** The steps that wrote each state cell, oldest first, as far back as steps are kept. */
  private readonly writers = new Map<string, number[]>();
  /** Every write in step order, so that truncating and forgetting old steps touch only what they drop. */
  private writes: [seq: number, cell: string][] = [];
  private writesStart = 0;
  private readonly lines = new LineNumbers();

  add(lineage: StepLineage): void {
    this.steps.set(lineage.seq, lineage);
    for (const cell of lineage.writes) {
      let seqs = this.writers.get(cell);
      if (seqs === undefined) {
        seqs = [];
        this.writers.set(cell, seqs);
      }
      seqs.push(lineage.seq);
      this.writes.push([lineage.seq, cell]);
    }
    this.forgetBefore(this.steps.oldest);
  }

  get(seq: number): StepLineage | undefined {
    return this.steps.get(seq);
  }

  truncateAfter(seq: number): void {
    this.steps.truncateAfter(seq);
    while (this.writes.length > this.writesStart && this.writes.at(-1)![0] > seq) {
      const [, cell] = this.writes.pop()!;
      const seqs = this.writers.get(cell)!;
      seqs.pop();
      if (seqs.length === 0) this.writers.delete(cell);
    }
    this.forgetBefore(this.steps.oldest);
  }

  private forgetBefore(oldest: number): void {
    while (this.writesStart < this.writes.length && this.writes[this.writesStart]![0] < oldest) {
      const [, cell] = this.writes[this.writesStart++]!;
      const seqs = this.writers.get(cell)!;
      seqs.shift();
      if (seqs.length === 0) this.writers.delete(cell);
    }
    if (this.writesStart > 4096 && this.writesStart * 2 > this.writes.length) {
      this.writes = this.writes.slice(this.writesStart);
      this.writesStart = 0;
    }
  }

  /** The last step before `seq` that wrote any of the read's cells. */
  private writerOf(read: StateRead, seq: number): number | undefined {
    let last: number | undefined;
    for (const cell of read.cells) {
      const seqs = this.writers.get(cell);
      if (seqs === undefined) continue;
      for (let i = seqs.length - 1; i >= 0; i--) {
        const at = seqs[i]!;
        if (at < seq) {
          if (last === undefined || at > last) last = at;
          break;
        }
      }
    }
    return last;
  }

  /** A source record as the view shows it: where it is, in a person's terms. */
  private inputView(input: TraceInput): TraceInputView {
    const { source, ...view } = input;
    return source === undefined ? view : { ...view, where: recordPlace(source, input.position, this.lines) };
  }

  private stateFrom(step: StepLineage): StateSourceView[] {
    const sources: StateSourceView[] = [];
    for (const read of step.reads) {
      const seq = this.writerOf(read, step.seq);
      const writer = seq === undefined ? undefined : this.steps.get(seq);
      if (writer === undefined) continue;
      sources.push({
        state: read.state,
        key: read.key,
        ...('element' in read ? { element: read.element } : {}),
        step: writer.seq,
        operator: writer.operator,
        subtask: writer.subtask,
        ...(writer.input === undefined ? {} : { input: this.inputView(writer.input) }),
      });
    }
    return sources;
  }

  /**
   * The record step `seq` emitted at `emitted`, or (`received`) the record it took (at a sink,
   * output 0 is that one too): its source input and the steps from that input to it.
   */
  trace(seq: number, emitted: number | 'received'): TraceView {
    const step = this.steps.get(seq);
    if (step === undefined) {
      throw new Error(
        `step ${seq} is not kept for traces (the last ${countText(TRACE_STEPS)} steps are, from step ${this.steps.oldest})`,
      );
    }
    if (emitted === 'received') {
      if (!step.received) {
        throw new Error(
          `step ${seq} (operator "${step.operator}") took no record to trace; it emitted ${step.emitted}`,
        );
      }
    } else {
      const ok =
        Number.isInteger(emitted) && emitted >= 0 && (emitted < step.emitted || (step.sink && emitted === 0));
      if (!ok) {
        throw new Error(
          step.sink
            ? `step ${seq} wrote one record at sink "${step.operator}": trace it as output 0`
            : `step ${seq} (operator "${step.operator}") emitted ${step.emitted} record(s); there is no output ${emitted}`,
        );
      }
    }
    const path: TraceView['path'][number][] = [];
    for (let at: StepLineage | undefined = step; at !== undefined; ) {
      const stateFrom = this.stateFrom(at);
      path.push({
        operator: at.operator,
        subtask: at.subtask,
        step: at.seq,
        stateKeys: at.stateKeys,
        ...(stateFrom.length === 0 ? {} : { stateFrom }),
      });
      at = at.parent === undefined ? undefined : this.steps.get(at.parent.seq);
    }
    path.reverse();
    return { inputs: step.input === undefined ? [] : [this.inputView(step.input)], path };
  }
}
