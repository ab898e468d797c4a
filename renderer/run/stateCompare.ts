// Comparing one key's state between two checkpoints (or a checkpoint and the live state): the
// engine finds the key where it lives on each side and lines its states up (state.compare);
// this says which sides there are to choose and how a key typed into the browser reads.
import type { CompareSide } from '../../engine/protocol/protocol.js';

/** A key as the state browser writes it and the prefix search matches it: a string as it is, anything else as JSON. */
export function keyText(key: unknown): string {
  return typeof key === 'string' ? key : (JSON.stringify(key) ?? String(key));
}

/**
 * The keys a typed text may stand for, as the host reads it (engine/host/keyState.ts): the text
 * as a string, and when it is the JSON of another value (7, ["a",1]) that value too; quoted
 * ("7"), the string alone.
 */
export function keysOfText(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [text];
  }
  return typeof parsed === 'string' ? [parsed] : [text, parsed];
}

export function sideName(side: CompareSide): string {
  return side === 'live' ? 'live state' : `checkpoint ${side}`;
}

/**
 * What to compare when nothing is chosen, or what was chosen is gone: the two newest
 * checkpoints, or the only one and the live state. `ids` newest first.
 */
export function defaultSides(
  ids: readonly number[],
  chosen: { from?: CompareSide; to?: CompareSide },
): { from: CompareSide; to: CompareSide } | undefined {
  const there = (side: CompareSide | undefined) =>
    side === 'live' || (side !== undefined && ids.includes(side));
  if (ids.length === 0) return undefined;
  const from = there(chosen.from) ? chosen.from! : (ids[1] ?? ids[0]!);
  const to = there(chosen.to) ? chosen.to! : ids.length > 1 ? ids[0]! : 'live';
  return { from, to };
}
