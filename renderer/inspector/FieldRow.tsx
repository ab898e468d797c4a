// The frame every inspector input sits in: its label, whether it may be left out, then what is
// wrong with it (a local refusal, the validator's problems) and its help text, all tied to the
// input by aria-describedby so that a screen reader reads them with it.
import type { ReactNode } from 'react';

export interface FieldRowProps {
  /** The input's id; `${id}-desc` names the descriptions. */
  readonly id: string;
  readonly label: string;
  /** Shown as "required" or "optional"; absent for fields where neither applies. */
  readonly required?: boolean;
  /** The key in the job file, shown beside the label for people who also read the file. */
  readonly jsonKey?: string;
  readonly help?: string;
  /** Why the text typed was not taken (the draft keeps its old value). */
  readonly error?: string;
  /** The validator's problems with the value as it is. */
  readonly problems?: readonly string[];
  /** A field whose label is not a <label> (the code editor labels itself). */
  readonly labelFor?: false;
  /** A word beside the label saying what the value is, e.g. "env" for an environment reference. */
  readonly badge?: FieldBadge;
  /** Said under the input before the help, e.g. a warning with an action. */
  readonly notes?: ReactNode;
  readonly children: ReactNode;
}

export interface FieldBadge {
  readonly text: string;
  readonly title: string;
}

export function describedBy(id: string): string {
  return `${id}-desc`;
}

/** The key in the job file, beside a field's label. */
export function FieldKey({ jsonKey }: { jsonKey: string | undefined }) {
  if (jsonKey === undefined) return null;
  return (
    <code className="field-key" title={jsonKey}>
      {jsonKey}
    </code>
  );
}

/** What is wrong with a field and its help, under it; the input names it with aria-describedby. */
export function FieldNotes({
  id,
  error,
  problems,
  help,
  notes,
}: {
  id: string;
  error?: string | undefined;
  problems: readonly string[];
  help: string | undefined;
  notes?: ReactNode;
}) {
  return (
    <div id={describedBy(id)} className="field-notes">
      {error !== undefined && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {problems.map((message) => (
        <p key={message} className="field-problem">
          {message}
        </p>
      ))}
      {notes}
      {help !== undefined && <p className="field-help">{help}</p>}
    </div>
  );
}

export function FieldRow({
  id,
  label,
  required,
  jsonKey,
  help,
  error,
  problems = [],
  labelFor,
  badge,
  notes,
  children,
}: FieldRowProps) {
  return (
    <div className="field">
      <div className="field-head">
        {labelFor === false ? (
          <span className="field-label">{label}</span>
        ) : (
          <label className="field-label" htmlFor={id}>
            {label}
          </label>
        )}
        {required !== undefined && (
          <span className={required ? 'field-required' : 'field-optional'}>
            {required ? 'required' : 'optional'}
          </span>
        )}
        {badge !== undefined && (
          <span className="field-badge" title={badge.title}>
            {badge.text}
          </span>
        )}
        <FieldKey jsonKey={jsonKey} />
      </div>
      {children}
      <FieldNotes id={id} error={error} problems={problems} help={help} notes={notes} />
    </div>
  );
}
