// The palette's contents: every registered operator kind, grouped as its descriptor says in the
// order a job reads (sources, transforms, keyed, sinks), narrowed by a search that matches any
// words the user might think of: the label, the kind as the file spells it, or the group.
import { type KindDescriptor, type KindGroup, listKinds } from '../../engine/graph/index.js';

export interface PaletteGroup {
  readonly role: KindGroup;
  readonly title: string;
  readonly kinds: readonly KindDescriptor[];
}

const GROUPS: readonly (readonly [KindGroup, string])[] = [
  ['source', 'Sources'],
  ['transform', 'Transforms'],
  ['keyed', 'Keyed'],
  ['sink', 'Sinks'],
];

/** The groups with at least one kind matching every word of the query. */
export function paletteGroups(query: string): PaletteGroup[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const out: PaletteGroup[] = [];
  for (const [role, title] of GROUPS) {
    const kinds = listKinds().filter(({ kind, designer }) => {
      if (designer.group !== role) return false;
      const haystack = `${designer.label} ${kind} ${role} ${title}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    if (kinds.length > 0) out.push({ role, title, kinds });
  }
  return out;
}
