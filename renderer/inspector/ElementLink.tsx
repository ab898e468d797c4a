// A reference to an edge or operator in the inspector that selects it (and centres the canvas on
// it) when clicked, so the user can walk the graph from the inspector alone.
import { useDesignerStore } from '../store/designerContext';

export function ElementLink({ kind, id, label }: { kind: 'operator' | 'edge'; id: string; label?: string }) {
  const store = useDesignerStore();
  return (
    <button
      type="button"
      className="element-link"
      aria-label={label ?? `Select ${kind} ${id}`}
      title={`Select ${kind} ${id}`}
      onClick={() => store.getState().focus(kind, id)}
    >
      {id}
    </button>
  );
}
