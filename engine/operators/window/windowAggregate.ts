// What a window computes over its records, as Flink's AggregateFunction: one accumulator per key
// and window, never the records themselves. Accumulators are JSON values, since they are keyed
// state (in checkpoints, moved on rescale).

export interface WindowAggregate {
  /** The accumulator of a window with no record yet. */
  createAccumulator(): unknown;
  /** The accumulator once `record` is in it too. */
  add(accumulator: unknown, record: unknown): unknown;
  /** One accumulator for the union of two windows (session windows merging). */
  merge(a: unknown, b: unknown): unknown;
  /** The window's `value` in its output. */
  result(accumulator: unknown): unknown;
}
