// What a new operator of a kind starts with, as its descriptor says: an id base and parameters
// that validate, so a freshly dropped operator shows problems only about its wiring.
import { getKind } from '../../engine/graph/index.js';
import type { JsonObject } from './jobDraft';

/** The start of a new operator's id, e.g. "source" for source.jsonl. */
export function idBase(kind: string): string {
  return getKind(kind).designer.idBase;
}

export function defaultParams(kind: string): JsonObject {
  // A copy: the draft is edited in place, the descriptor is shared.
  return structuredClone(getKind(kind).designer.defaultParams) as JsonObject;
}
