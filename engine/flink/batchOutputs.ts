// Where a worker's records go: not to channels, as in the local engine, but into the batch's
// answer, as JSON text, for the runner to send on in Flink. An Emitter (runtime/emitter.ts) with
// no routes of its own, so ctx.emit and the map, filter and flatMap logics call it exactly as
// they call the local one, with the record already copied by recordCopy (so it is JSON data).
import { Emitter } from '../runtime/emitter.js';
import type { Output } from './pipeMessages.js';

export class BatchOutputs extends Emitter {
  private out: Output[] = [];

  constructor(subtask: number, maxParallelism: number) {
    super(subtask, maxParallelism, new Map(), () => []);
  }

  override emit(value: unknown, port?: string): void {
    this.recordsOut++;
    const text = JSON.stringify(value);
    const timestamp = this.lineage.timestamp;
    if (timestamp !== undefined) this.out.push([port ?? 'out', text, timestamp]);
    else this.out.push(port === undefined || port === 'out' ? text : [port, text]);
  }

  /** A watermark of the batch passed here: the runner sends it on after what came before. */
  watermarkPassed(): void {
    this.out.push(null);
  }

  /** The batch's records, in the order emitted; the next batch starts with none. */
  take(): Output[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}
