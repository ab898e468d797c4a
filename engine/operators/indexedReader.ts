// A reader that makes record i for each index of its streams (indexStreams.ts), at the source's
// rate (ratePacer.ts): the generator and NEXMark sources, which differ only in how they make a
// record.
import type { SubtaskEnvironment } from '../runtime/operatorLogic.js';
import type { SourceReader } from '../runtime/source.js';
import { type IndexSplit, IndexStreams } from './indexStreams.js';
import { RatePacer } from './ratePacer.js';

export abstract class IndexedReader implements SourceReader<IndexSplit> {
  private readonly streams: IndexStreams;
  private readonly pacer: RatePacer;

  constructor(
    protected readonly env: SubtaskEnvironment,
    count: number | undefined,
    ratePerSec: number | undefined,
  ) {
    this.streams = new IndexStreams(count ?? Number.POSITIVE_INFINITY);
    this.pacer = new RatePacer(ratePerSec, env.parallelism);
  }

  /** Makes record `i` and emits it; a promise only when making it went asynchronous. */
  protected abstract make(i: number): void | Promise<void>;

  async open(splits: readonly IndexSplit[]): Promise<void> {
    this.streams.add(splits);
  }

  snapshotSplits(): IndexSplit[] {
    return this.streams.splits();
  }

  async close(): Promise<void> {}

  /** The pacer's next due time (long past without a rate, or when behind its schedule). */
  dueAt(): number {
    return this.pacer.nextDue;
  }

  progress(): { streams: IndexSplit[]; nextDue: number } {
    return { streams: this.streams.splits(), nextDue: this.pacer.nextDue };
  }

  restoreProgress(progress: unknown): void {
    const p = progress as ReturnType<IndexedReader['progress']>;
    this.streams.reset(p.streams);
    this.pacer.nextDue = p.nextDue;
  }

  poll(limit: number): number | Promise<number> {
    if (this.streams.exhausted) return -1;
    // A wait for the rate ends the slice with nothing made: the records come in the next slice,
    // which a run paused meanwhile does not start.
    const wait = this.pacer.wait();
    if (wait !== undefined) return wait.then(() => 0);
    const emitter = this.env.emitter;
    const max = Math.min(limit, this.pacer.perSlice);
    let emitted = 0;
    while (emitted < max) {
      const i = this.streams.take();
      if (i === undefined) break;
      const pending = this.make(i);
      if (pending !== undefined) {
        return pending.then(() => {
          this.pacer.made(emitted + 1);
          return emitted + 1;
        });
      }
      emitted++;
      if (emitter.blocked) break;
    }
    this.pacer.made(emitted);
    return emitted;
  }
}
