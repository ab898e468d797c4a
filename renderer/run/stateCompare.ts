// Comparing one key's state between two checkpoints (or a checkpoint and the live state): the
// engine finds the key where it lives on each side and lines its states up (state.compare);
// this says which sides there are to choose (how a key is written and read: engine/graph/keyText.ts).
import type { CompareSide } from '../../engine/protocol/protocol.js';

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
