// A text input over a value of the draft. It keeps the text the user typed, which may be no
// value at all yet ("12a" in a number field), and writes to the store only what parses; it
// takes the store's value again when that changes from elsewhere (undo, redo, the canvas).

import type { ReactNode } from 'react';
import { useId, useState } from 'react';
import type { JsonValue } from '../document/jobDraft';
import { describedBy, type FieldBadge, FieldRow } from './FieldRow';
import type { PathSegments } from './problemPaths';
import { type Parsed, sameJson } from './schemaFields';
import { useUnappliedField } from './useUnappliedField';

export interface TextFieldProps {
  readonly label: string;
  readonly value: JsonValue | undefined;
  readonly format: (value: JsonValue | undefined) => string;
  readonly parse: (text: string) => Parsed;
  /** `how`: whether the user is typing, pressed Enter, or left the field. */
  readonly onCommit: (value: JsonValue | undefined, how: 'input' | 'enter' | 'blur') => void;
  /**
   * "input" writes as the user types (the store folds the keystrokes into one undo step);
   * "enter" writes on Enter or when the input loses focus, and Escape goes back: for edits
   * that ripple through the document, such as renaming an operator.
   */
  readonly commitOn?: 'input' | 'enter';
  readonly required?: boolean;
  readonly jsonKey?: string;
  /** Where the value is inside the form's place (see fieldOwner.ts); `[jsonKey]` unless given. */
  readonly at?: PathSegments;
  readonly help?: string;
  readonly problems?: readonly string[];
  readonly placeholder?: string;
  readonly multiline?: boolean;
  readonly inputMode?: 'text' | 'numeric' | 'decimal';
  readonly autoFocus?: boolean;
  readonly badge?: FieldBadge;
  /** Values the input offers as the user types (a choice field's words). */
  readonly suggestions?: readonly string[];
  /** Said under the input before the help (see FieldRow). */
  readonly notes?: ReactNode;
}

export function TextField(props: TextFieldProps) {
  const { value, format, parse, onCommit, commitOn = 'input' } = props;
  const id = useId();
  const [text, setText] = useState(() => format(value));
  const [error, setError] = useState<string | undefined>(undefined);
  const [seen, setSeen] = useState(value);
  useUnappliedField({
    key: id,
    label: props.label,
    at: props.at ?? (props.jsonKey === undefined ? [] : [props.jsonKey]),
    text,
    error,
    kept: format(value),
  });

  // The store's value changed under us: show it, unless it is what the text already says (the
  // change was our own, or "1." was typed and 1 written).
  if (!sameJson(seen, value)) {
    setSeen(value);
    const parsed = parse(text);
    if (!(parsed.ok && sameJson(parsed.value, value))) {
      setText(format(value));
      setError(undefined);
    }
  }

  const commit = (next: string, how: 'input' | 'enter' | 'blur') => {
    const parsed = parse(next);
    if (!parsed.ok) {
      setError(parsed.message);
      return;
    }
    setError(undefined);
    if (!sameJson(parsed.value, value)) onCommit(parsed.value, how);
  };

  const common = {
    id,
    value: text,
    placeholder: props.placeholder,
    'aria-describedby': describedBy(id),
    'aria-invalid': error !== undefined || (props.problems?.length ?? 0) > 0,
    'aria-required': props.required,
    spellCheck: false,
    autoFocus: props.autoFocus,
    onChange: (e: { target: { value: string } }) => {
      setText(e.target.value);
      if (commitOn === 'input') commit(e.target.value, 'input');
      else setError(undefined);
    },
    onBlur: () => {
      if (commitOn === 'enter') commit(text, 'blur');
    },
    onKeyDown: (e: React.KeyboardEvent) => {
      if (commitOn !== 'enter') return;
      if (e.key === 'Enter') {
        e.preventDefault();
        commit(text, 'enter');
      } else if (e.key === 'Escape') {
        setText(format(value));
        setError(undefined);
      }
    },
  };

  return (
    <FieldRow
      id={id}
      label={props.label}
      required={props.required}
      jsonKey={props.jsonKey}
      help={props.help}
      error={error}
      problems={props.problems}
      badge={props.badge}
      notes={props.notes}
    >
      {props.multiline ? (
        <textarea className="field-input" rows={3} {...common} />
      ) : (
        <>
          <input
            className="field-input"
            type="text"
            inputMode={props.inputMode}
            autoComplete="off"
            list={props.suggestions === undefined ? undefined : `${id}-list`}
            {...common}
          />
          {props.suggestions !== undefined && (
            <datalist id={`${id}-list`}>
              {props.suggestions.map((option) => (
                <option key={option} value={option} />
              ))}
            </datalist>
          )}
        </>
      )}
    </FieldRow>
  );
}
