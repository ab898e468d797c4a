// A choice among a schema's enum values. A value outside them (a foreign or hand-edited file)
// is shown as it is rather than silently replaced by the first option.
import { useId } from 'react';
import type { JsonValue } from '../document/jobDraft';
import { describedBy, FieldRow } from './FieldRow';

export interface SelectFieldProps {
  readonly label: string;
  readonly value: JsonValue | undefined;
  readonly options: readonly string[];
  readonly onChange: (value: string | undefined) => void;
  /** Offer "not set" (the value is removed); its words, e.g. "default (level)". */
  readonly emptyLabel?: string;
  readonly required?: boolean;
  readonly jsonKey?: string;
  readonly help?: string;
  readonly problems?: readonly string[];
}

const EMPTY = '';

export function SelectField(props: SelectFieldProps) {
  const id = useId();
  const { value, options, emptyLabel } = props;
  const current = value === undefined ? EMPTY : typeof value === 'string' ? value : JSON.stringify(value);
  const foreign = current !== EMPTY && !options.includes(current);
  return (
    <FieldRow
      id={id}
      label={props.label}
      required={props.required}
      jsonKey={props.jsonKey}
      help={props.help}
      problems={props.problems}
    >
      <select
        id={id}
        className="field-input"
        value={current}
        aria-describedby={describedBy(id)}
        aria-invalid={(props.problems?.length ?? 0) > 0}
        aria-required={props.required}
        onChange={(e) => props.onChange(e.target.value === EMPTY ? undefined : e.target.value)}
      >
        {emptyLabel !== undefined ? (
          <option value={EMPTY}>{emptyLabel}</option>
        ) : (
          current === EMPTY && (
            <option value={EMPTY} disabled>
              Choose…
            </option>
          )
        )}
        {foreign && <option value={current}>{`${current} (not valid)`}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </FieldRow>
  );
}
