// The producing side of an edge into a transaction operator (runtime/edgeRouter.ts): each record
// goes to the subtasks that own one of its rows, as keys(record) names them, in the producer's
// subtask, with a Compartment of its own. The owners are found as txRows.ts finds them, without
// making its row objects (this runs for every record on the producer's thread). A record whose
// keys() throws or returns what txRows refuses goes to every subtask, each of which fails on it
// as before, naming the transaction operator and the record.
import { keyGroupOf, subtaskOfKeyGroup } from '../../graph/keyGroups.js';
import type { EdgeRouter } from '../../runtime/edgeRouter.js';

// biome-ignore lint/complexity/noBannedTypes: user code is any function
type UserFunction = Function;

export function txRouter(
  keys: UserFunction,
  tables: ReadonlySet<string>,
  parallelism: number,
  maxParallelism: number,
): EdgeRouter {
  // One array for every record: the emitter reads it before it asks again.
  const owners: number[] = [];
  return {
    targets(value: unknown): readonly number[] | undefined {
      let returned: unknown;
      try {
        // A plain call, never as a method: user code would see the router as `this`.
        const keysOf = keys;
        returned = keysOf(value);
      } catch {
        return undefined;
      }
      if (!Array.isArray(returned)) return undefined;
      owners.length = 0;
      for (let i = 0; i < returned.length; i++) {
        const pair: unknown = returned[i];
        if (!Array.isArray(pair) || pair.length !== 2) return undefined;
        const table: unknown = pair[0];
        const key: unknown = pair[1];
        if (typeof table !== 'string' || !tables.has(table)) return undefined;
        if (!(typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key)))) return undefined;
        const owner = subtaskOfKeyGroup(keyGroupOf(key, maxParallelism), parallelism, maxParallelism);
        // Ascending, each once (a few rows: an insertion).
        let at = owners.length;
        while (at > 0 && owners[at - 1]! > owner) at--;
        if (at > 0 && owners[at - 1] === owner) continue;
        owners.splice(at, 0, owner);
      }
      // A transaction that names no row runs on subtask 0 (txRows).
      if (owners.length === 0) owners.push(0);
      return owners;
    },
  };
}
