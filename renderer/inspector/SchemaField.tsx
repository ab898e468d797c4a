// One input generated from a field descriptor (see schemaFields.ts): the kind of input follows
// the zod type, the help text is the schema's description, "required" follows optional/default.
import type { JsonValue } from '../document/jobDraft';
import { CheckboxField } from './CheckboxField';
import type { PathSegments } from './problemPaths';
import { SelectField } from './SelectField';
import { type FieldDescriptor, formatFieldValue, numberWords, parseFieldText } from './schemaFields';
import { TextField } from './TextField';

export interface SchemaFieldProps {
  readonly field: Exclude<FieldDescriptor, { type: 'code' }>;
  readonly value: JsonValue | undefined;
  readonly onChange: (value: JsonValue | undefined) => void;
  readonly problems?: readonly string[];
  /** Said after the help, e.g. that the field holds a value it does not use. */
  readonly note?: string;
  /** Where the value is inside the form's place (see fieldOwner.ts). */
  readonly at?: PathSegments;
}

function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function helpOf(field: SchemaFieldProps['field'], note: string | undefined): string | undefined {
  const parts: string[] = [];
  if (note !== undefined) parts.push(note);
  if (field.description !== undefined) parts.push(field.description);
  if (field.type === 'number') parts.push(sentence(numberWords(field)));
  if (field.type === 'stringList') parts.push('Separate the items with commas.');
  if (field.type === 'other') parts.push('Written as JSON.');
  return parts.length === 0 ? undefined : parts.join(' ');
}

export function SchemaField({ field, value, onChange, problems, at, note }: SchemaFieldProps) {
  const common = { label: field.label, jsonKey: field.name, help: helpOf(field, note), problems };
  switch (field.type) {
    case 'enum':
      return (
        <SelectField
          {...common}
          required={field.required}
          value={value}
          options={field.options}
          emptyLabel={
            field.required
              ? undefined
              : field.defaultValue === undefined
                ? 'not set'
                : `default (${formatFieldValue(field, field.defaultValue)})`
          }
          onChange={onChange}
        />
      );
    case 'boolean':
      return (
        <CheckboxField
          {...common}
          checked={(value ?? field.defaultValue) === true}
          // A flag set to what absence already means is removed rather than written.
          onChange={(checked) =>
            onChange(!field.required && checked === (field.defaultValue ?? false) ? undefined : checked)
          }
        />
      );
    default:
      return (
        <TextField
          {...common}
          at={at}
          required={field.required}
          value={value}
          format={(v) => formatFieldValue(field, v)}
          parse={(text) => parseFieldText(field, text)}
          onCommit={onChange}
          inputMode={field.type === 'number' ? (field.integer ? 'numeric' : 'decimal') : undefined}
          placeholder={
            field.defaultValue === undefined
              ? undefined
              : `${formatFieldValue(field, field.defaultValue)} (default)`
          }
        />
      );
  }
}
