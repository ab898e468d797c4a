// One state entry's value as the state browser shows it: a value as one line of JSON; a map or
// list as rows of its elements (a map's key and value, a list's index and value), its first
// ones at once and more a page at a time on request (state.elements), so a map far bigger than
// memory is never loaded whole, here or in the engine.
import { useEffect, useState } from 'react';
import type { StateElementView, StateEntryView } from '../../engine/protocol/protocol.js';
import { useRunController } from './runContext';
import { inlineValue } from './stepFormat';
import { formatCount } from './units';

/** Elements read by one "More elements". */
const MORE = 50;
/** A value longer than this is cut (its tooltip has the rest, up to a point). */
const VALUE_CHARS = 300;

/** The first elements an entry carries, as rows: a map's pairs, a list's values by index. */
export function firstElements(entry: StateEntryView): StateElementView[] {
  if (!Array.isArray(entry.value)) return [];
  return entry.type === 'map'
    ? (entry.value as [unknown, unknown][]).map(([element, value]) => ({ element, value }))
    : entry.value.map((value, index) => ({ element: index, value }));
}

/** A value as one line, with the whole of it (up to a point) in its tooltip. */
export function ValueText({ value }: { value: unknown }) {
  const text = inlineValue(value, VALUE_CHARS);
  return (
    <code className="state-value" title={text.endsWith('…') ? inlineValue(value, 5000) : undefined}>
      {text}
    </code>
  );
}

export function StateValue({
  operator,
  entry,
  keyText,
  checkpointId,
}: {
  operator: string;
  entry: StateEntryView;
  /** The key as the browser writes it, for the table's name. */
  keyText: string;
  /** Read from this checkpoint (more elements come from it too). */
  checkpointId?: number;
}) {
  const controller = useRunController();
  const id = `${keyText}\0${entry.state}\0${entry.type}`;
  // More elements read for this entry, kept as the page is read again (a live run's is, every
  // second) and read again with it from the first elements on, so they stay as the run has them.
  const [more, setMore] = useState<{ id: string; rows: StateElementView[]; next?: string }>();
  const [error, setError] = useState<string | undefined>(undefined);
  // A map that has come to fit in its first elements has no more to show.
  const extra = more?.id === id && entry.elementsAfter !== undefined ? more : undefined;
  const read = (after: string, limit: number, kept: StateElementView[]) =>
    controller
      .keyState('state.elements', {
        operator,
        key: entry.key,
        state: entry.state,
        type: entry.type as 'map' | 'list',
        after,
        limit,
        ...(checkpointId === undefined ? {} : { checkpointId }),
      })
      .then(
        (page) => {
          setMore({
            id,
            rows: [...kept, ...page.elements],
            ...(page.next === undefined ? {} : { next: page.next }),
          });
          setError(undefined);
        },
        (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
      );
  const shownMore = extra?.rows.length ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new reading of the entry is the reason to read its other elements again
  useEffect(() => {
    if (shownMore === 0 || entry.elementsAfter === undefined) return;
    read(entry.elementsAfter, Math.min(1000, shownMore), []);
  }, [entry]);
  if (entry.type === 'value') return <ValueText value={entry.value} />;

  const rows = [...firstElements(entry), ...(extra?.rows ?? [])];
  const after = extra === undefined ? entry.elementsAfter : extra.next;
  const count = entry.elementCount ?? rows.length;
  const loadMore = () => {
    if (after !== undefined) read(after, MORE, extra?.rows ?? []);
  };
  return (
    <div className="state-elements">
      <div className="muted">
        {formatCount(count)} element{count === 1 ? '' : 's'}
        {rows.length < count ? `, the first ${formatCount(rows.length)} shown` : ''}
      </div>
      {rows.length > 0 && (
        <table className="run-table state-element-table" aria-label={`${entry.state} of ${keyText}`}>
          <thead>
            <tr>
              <th scope="col">{entry.type === 'map' ? 'Key' : '#'}</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={inlineValue(row.element, 1000)}>
                <td>{entry.type === 'map' ? <ValueText value={row.element} /> : String(row.element)}</td>
                <td>
                  <ValueText value={row.value} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {after !== undefined && (
        <button
          type="button"
          className="link"
          aria-label={`More elements of ${entry.state} of ${keyText}`}
          onClick={loadMore}
        >
          More elements
        </button>
      )}
      {error !== undefined && (
        <p className="error" role="alert">
          Could not read more elements: {error}
        </p>
      )}
    </div>
  );
}
