// Reads the key of a hash edge out of a record: a field path, or an array of them (composite).

import { JobError } from '../graph/jobError.js';
import type { PlannedEdge } from '../graph/plan.js';

export type KeyExtractor = (record: unknown) => unknown;

function readPath(record: unknown, path: readonly string[]): unknown {
  let value = record;
  for (const field of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[field];
  }
  return value;
}

export function keyExtractor(edge: PlannedEdge): KeyExtractor {
  const paths = edge.keyPaths;
  const missing = (path: readonly string[]) =>
    new JobError(`edge "${edge.id}" is partitioned by "${path.join('.')}", but the record has no such field`);
  const checked = (record: unknown, path: readonly string[]) => {
    const value = readPath(record, path);
    if (value === undefined || value === null) throw missing(path);
    return value;
  };
  if (!edge.compositeKey) {
    const path = paths[0]!;
    if (path.length === 1) {
      const field = path[0]!;
      return (record) => {
        const value =
          record !== null && typeof record === 'object'
            ? (record as Record<string, unknown>)[field]
            : undefined;
        if (value === undefined || value === null) throw missing(path);
        return value;
      };
    }
    return (record) => checked(record, path);
  }
  return (record) => paths.map((path) => checked(record, path));
}
