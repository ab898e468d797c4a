// The palette's contents: every operator kind, grouped by role in the order a job reads
// (sources, transforms, keyed, sinks), narrowed by a search that matches any words the user
// might think of: the title, the kind as the file spells it, or the group.
import { KINDS, type KindInfo, OPERATOR_KINDS, type OperatorRole } from '../../engine/graph/index.js';

export interface PaletteGroup {
  readonly role: OperatorRole;
  readonly title: string;
  readonly kinds: readonly KindInfo[];
}

const GROUPS: readonly (readonly [OperatorRole, string])[] = [
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
    const kinds = OPERATOR_KINDS.map((kind) => KINDS[kind]).filter((info) => {
      if (info.role !== role) return false;
      const haystack = `${info.title} ${info.kind} ${role} ${title}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    if (kinds.length > 0) out.push({ role, title, kinds });
  }
  return out;
}
