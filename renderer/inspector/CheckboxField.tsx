// A true/false value of the draft: the label sits beside the box, as people expect of a checkbox.
import { useId } from 'react';
import { describedBy, FieldKey, FieldNotes } from './FieldRow';

export interface CheckboxFieldProps {
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly jsonKey?: string;
  readonly help?: string;
  readonly problems?: readonly string[];
}

export function CheckboxField({
  label,
  checked,
  onChange,
  jsonKey,
  help,
  problems = [],
}: CheckboxFieldProps) {
  const id = useId();
  return (
    <div className="field field-check">
      <div className="field-head">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-describedby={describedBy(id)}
          aria-invalid={problems.length > 0}
          onChange={(e) => onChange(e.target.checked)}
        />
        <label className="field-label" htmlFor={id}>
          {label}
        </label>
        <FieldKey jsonKey={jsonKey} />
      </div>
      <FieldNotes id={id} problems={problems} help={help} />
    </div>
  );
}
