// A source subtask's work as streams of indexes i = next, next + stride, ... (the splits of the
// generator and NEXMark sources): subtask s of p starts with s, s + p, ...; a restore may give
// it several. Taken lowest index first, so records come in index order whatever the split.

import type { SplitEnumerator } from '../runtime/source.js';

/** One split: indexes next, next + stride, ... */
export interface IndexSplit {
  readonly next: number;
  readonly stride: number;
}

/** Subtask s of p reads s, s + p, ...; a restore deals what was left round-robin. */
export const indexEnumerator: SplitEnumerator<IndexSplit> = {
  assign(parallelism, restored) {
    if (restored === undefined)
      return Array.from({ length: parallelism }, (_, s) => [{ next: s, stride: parallelism }]);
    const dealt: IndexSplit[][] = Array.from({ length: parallelism }, () => []);
    restored.forEach((split, i) => {
      dealt[i % parallelism]!.push(split);
    });
    return dealt;
  },
};

export class IndexStreams {
  private readonly streams: { next: number; stride: number }[] = [];

  constructor(
    /** Indexes from here on are past the end (Infinity: unbounded). */
    private readonly count: number,
  ) {}

  add(splits: readonly IndexSplit[]): void {
    this.streams.push(...splits.map((s) => ({ next: s.next, stride: s.stride })));
  }

  /** The next index to make, taken; undefined once every stream is past the end. */
  take(): number | undefined {
    let best: { next: number; stride: number } | undefined;
    for (const stream of this.streams)
      if (stream.next < this.count && (best === undefined || stream.next < best.next)) best = stream;
    if (best === undefined) return undefined;
    const index = best.next;
    best.next += best.stride;
    return index;
  }

  get exhausted(): boolean {
    return this.streams.every((s) => s.next >= this.count);
  }

  /** What is left, as splits (a checkpoint's, and time travel's). */
  splits(): IndexSplit[] {
    return this.streams.filter((s) => s.next < this.count).map((s) => ({ next: s.next, stride: s.stride }));
  }

  /** Time travel: the streams as splits() left them. */
  reset(splits: readonly IndexSplit[]): void {
    this.streams.splice(0, this.streams.length, ...splits.map((s) => ({ next: s.next, stride: s.stride })));
  }
}
