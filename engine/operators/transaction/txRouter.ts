// The producing side of an edge into a transaction operator (runtime/edgeRouter.ts): each record
// goes to the subtasks that own one of its rows, as keys(record) names them (txRows.ts), in the
// producer's subtask, with a Compartment of its own. A record keys() fails on goes to every
// subtask, which fails on it as before, naming the transaction operator and the record.
import type { EdgeRouter } from '../../runtime/edgeRouter.js';
import { txRows } from './txRows.js';

// biome-ignore lint/complexity/noBannedTypes: user code is any function
type UserFunction = Function;

export function txRouter(
  keys: UserFunction,
  tables: ReadonlySet<string>,
  parallelism: number,
  maxParallelism: number,
): EdgeRouter {
  return {
    targets(value: unknown): readonly number[] | undefined {
      try {
        // A plain call, never as a method: user code would see the router as `this`.
        const keysOf = keys;
        return txRows(keysOf(value), tables, parallelism, maxParallelism).participants;
      } catch {
        return undefined;
      }
    },
  };
}
