// A small line icon per operator kind (its descriptor's path), drawn inline so it looks the same on every platform
// (glyph fonts differ). Decorative: the kind's name is always written next to it.
import { findKind } from '../../engine/graph/index.js';

const UNKNOWN = 'M5.5 6a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .8-1 1.5v.7 M8 12.5v.5';

export function KindIcon({ kind }: { kind: string | undefined }) {
  return (
    <svg
      className="kind-icon"
      aria-hidden="true"
      focusable="false"
      width="16"
      height="16"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={(kind === undefined ? undefined : findKind(kind)?.designer.icon) ?? UNKNOWN} />
    </svg>
  );
}
