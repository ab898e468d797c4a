// A small line icon per operator kind, drawn inline so it looks the same on every platform
// (glyph fonts differ). Decorative: the kind's name is always written next to it.
import type { OperatorKind } from '../../engine/graph/index.js';

const PATHS: Readonly<Record<OperatorKind, string>> = {
  'source.jsonl': 'M4 1.5h5.5l3 3v10H4z M6 7h4.5 M6 9.5h4.5 M6 12h3',
  'source.generator':
    'M8 1.5v4 M8 10.5v4 M1.5 8h4 M10.5 8h4 M3.5 3.5 6 6 M10 10l2.5 2.5 M12.5 3.5 10 6 M6 10l-2.5 2.5',
  map: 'M2 8h10.5 M9 4.5 12.5 8 9 11.5',
  filter: 'M2 3h12L9.5 8.5v5l-3-1.5V8.5z',
  flatMap: 'M2 8h4 M6 8l6.5-4.5 M6 8h6.5 M6 8l6.5 4.5',
  process:
    'M6 2.5c-1.5 0-2 .5-2 2v2C4 7.5 3.5 8 2.5 8 3.5 8 4 8.5 4 9.5v2c0 1.5.5 2 2 2 M10 2.5c1.5 0 2 .5 2 2v2c0 1 .5 1.5 1.5 1.5-1 0-1.5.5-1.5 1.5v2c0 1.5-.5 2-2 2',
  window: 'M2 3h12v10H2z M6 3v10 M10 3v10',
  transaction: 'M3 5.5h10 M10.5 3 13 5.5 10.5 8 M13 10.5H3 M5.5 8 3 10.5 5.5 13',
  'sink.jsonl': 'M8 1.5v7 M5 5.5l3 3 3-3 M2 10v4h12v-4',
};
const UNKNOWN = 'M5.5 6a2.5 2.5 0 1 1 3.5 2.3c-.6.3-1 .8-1 1.5v.7 M8 12.5v.5';

export function KindIcon({ kind }: { kind: OperatorKind | undefined }) {
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
      <path d={kind === undefined ? UNKNOWN : PATHS[kind]} />
    </svg>
  );
}
