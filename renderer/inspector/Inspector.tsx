// The right-hand panel: the form for what is selected. One operator or one edge gets its own
// form; nothing, or several things, get the job's.
import { useRef } from 'react';
import { findEdge, findOperator } from '../document/draftEdits';
import { useDesigner } from '../store/designerContext';
import { EdgeForm } from './EdgeForm';
import { JobForm } from './JobForm';
import { OperatorForm } from './OperatorForm';
import './inspector.css';

export function Inspector() {
  const draft = useDesigner((s) => s.draft);
  const selection = useDesigner((s) => s.selection);
  // A rename committed with Enter remounts the form under the new id; the Id input should keep
  // the keyboard focus it had, so the new form is told to take it.
  const renamedTo = useRef<string | undefined>(undefined);

  let body: React.ReactNode;
  if (draft === undefined) {
    body = (
      <p className="inspector-note">
        The open file is not a job the designer can edit; the Problems panel says why.
      </p>
    );
  } else {
    const [operator] = selection.operators;
    const [edge] = selection.edges;
    const count = selection.operators.length + selection.edges.length;
    if (count === 1 && operator !== undefined && findOperator(draft, operator) !== undefined) {
      body = <OperatorForm key={operator} id={operator} renamedTo={renamedTo} />;
    } else if (count === 1 && edge !== undefined && findEdge(draft, edge) !== undefined) {
      body = <EdgeForm key={edge} id={edge} />;
    } else {
      body = <JobForm draft={draft} selected={count} />;
    }
  }

  return (
    <aside className="inspector" aria-label="Inspector">
      {body}
    </aside>
  );
}
