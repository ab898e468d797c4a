// A labelled control whose label is only its own text: a <label> wrapped round a <select> would
// give the select a name made of every option's text as well.
import { type ReactNode, useId } from 'react';

export function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="run-field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}
