// Key skew: one subtask holding far more state than its siblings means the key distribution
// (or the key chosen) is uneven, and that subtask limits the operator. The threshold is the
// issue's: more than twice the mean of the operator's subtasks.
export const SKEW_FACTOR = 2;

/** Indexes of the values above `factor` times the mean of all of them (none for fewer than two values). */
export function skewedIndexes(values: readonly number[], factor = SKEW_FACTOR): number[] {
  if (values.length < 2) return [];
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  if (!(mean > 0)) return [];
  const out: number[] = [];
  values.forEach((v, k) => {
    if (v > factor * mean) out.push(k);
  });
  return out;
}

/** "subtask 2 holds more than twice the mean" (or "subtasks 0 and 3 hold …"). */
export function skewMessage(subtasks: readonly number[]): string | undefined {
  if (subtasks.length === 0) return undefined;
  if (subtasks.length === 1) return `subtask ${subtasks[0]} holds more than twice the mean`;
  const names = `${subtasks.slice(0, -1).join(', ')} and ${subtasks[subtasks.length - 1]}`;
  return `subtasks ${names} hold more than twice the mean`;
}
