// React Flow reports selection as per-element changes; the store keeps the selection as lists
// of document ids. Folding the changes into the store's selection (rather than reading React
// Flow's) keeps the store the one truth, whatever else selected things meanwhile.
import type { Selection } from '../store/designerStore';

export interface SelectChange {
  readonly id: string;
  readonly selected: boolean;
}

/** The selection with the changes applied to one side of it; the same object when nothing changes. */
export function applySelectChanges(
  current: Selection,
  side: keyof Selection,
  changes: readonly SelectChange[],
): Selection {
  if (changes.length === 0) return current;
  const ids = new Set(current[side]);
  for (const change of changes) {
    if (change.selected) ids.add(change.id);
    else ids.delete(change.id);
  }
  const before = current[side];
  if (ids.size === before.length && before.every((id) => ids.has(id))) return current;
  return { ...current, [side]: [...ids] };
}
