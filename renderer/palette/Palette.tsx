// The operator palette: every kind, grouped and searchable. A click adds the kind in the middle
// of the visible canvas; a drag drops it where the user lets go (the canvas takes the drop).
import { type DragEvent, useId, useMemo, useState } from 'react';
import type { KindDescriptor, OperatorKind } from '../../engine/graph/index.js';
import { KindIcon } from '../canvas/KindIcon';
import { viewportController } from '../canvas/viewportController';
import { draftPositions } from '../document/jobDraft';
import { useDesignerStore } from '../store/designerContext';
import { KIND_MIME } from './paletteDrag';
import { paletteGroups } from './paletteGroups';
import { placeNear } from './placement';
import './palette.css';

export function Palette() {
  const store = useDesignerStore();
  const [query, setQuery] = useState('');
  const groups = useMemo(() => paletteGroups(query), [query]);
  const headingId = useId();

  const add = (kind: string) => {
    const state = store.getState();
    if (state.draft === undefined) return;
    const at = placeNear(viewportController.centre(), Object.values(draftPositions(state.draft)));
    // The draft spells every registered kind as an OperatorKind: it only ever looks kinds up.
    state.addOperator(kind as OperatorKind, at);
  };

  return (
    <aside className="palette" aria-label="Operator palette">
      <h2 className="palette-heading">Operators</h2>
      <input
        className="palette-search"
        type="search"
        aria-label="Search operators"
        placeholder="Search operators"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && query !== '') {
            event.stopPropagation();
            setQuery('');
          }
        }}
      />
      <div className="palette-groups">
        {groups.map((group) => (
          <section key={group.role} className="palette-group" aria-labelledby={`${headingId}-${group.role}`}>
            <h3
              id={`${headingId}-${group.role}`}
              className={`palette-group-title palette-role-${group.role}`}
            >
              {group.title}
            </h3>
            <ul className="palette-list">
              {group.kinds.map((info) => (
                <li key={info.kind}>
                  <PaletteItem info={info} onAdd={add} />
                </li>
              ))}
            </ul>
          </section>
        ))}
        {groups.length === 0 && (
          <p className="palette-none" role="status">
            No operator matches “{query}”.
          </p>
        )}
      </div>
    </aside>
  );
}

function PaletteItem({ info, onAdd }: { info: KindDescriptor; onAdd: (kind: string) => void }) {
  const { label, group } = info.designer;
  const onDragStart = (event: DragEvent) => {
    event.dataTransfer.setData(KIND_MIME, info.kind);
    event.dataTransfer.effectAllowed = 'copy';
  };
  return (
    <button
      type="button"
      className={`palette-item palette-role-${group}`}
      aria-label={`Add ${label} (${info.kind})`}
      title={
        info.available
          ? `Click to add, or drag onto the canvas`
          : 'Not available in this version of Pipewright'
      }
      disabled={!info.available}
      draggable={info.available}
      onDragStart={info.available ? onDragStart : undefined}
      onClick={() => onAdd(info.kind)}
    >
      <span className="palette-item-icon">
        <KindIcon kind={info.kind} />
      </span>
      <span className="palette-item-text">
        <span className="palette-item-title">{label}</span>
        <span className="palette-item-kind">{info.kind}</span>
        {!info.available && <span className="palette-item-note">(not in this version)</span>}
      </span>
    </button>
  );
}
