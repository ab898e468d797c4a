// One input generated from a field descriptor (see schemaFields.ts): the kind of input follows
// the zod type, the help text is the schema's description, "required" follows optional/default.
import type { ReactNode } from 'react';
import type { JsonValue } from '../document/jobDraft';
import { CheckboxField } from './CheckboxField';
import { ENV_HINT, envNames, holdsLiteralPassword, PASSWORD_WARNING } from './envReferences';
import type { FieldBadge } from './FieldRow';
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
  /**
   * Set for a connector's server param (designer.connectionParams): a password typed into it is
   * warned of, with `suggested` (the kind's own "${env:NAME}" for it) offered instead.
   */
  readonly connection?: { readonly suggested?: string };
}

/** The badge and notes of a text value that names environment variables or holds a password. */
function secretNotes(
  value: JsonValue | undefined,
  connection: SchemaFieldProps['connection'],
  onChange: SchemaFieldProps['onChange'],
): { badge?: FieldBadge; notes?: ReactNode } {
  const names = envNames(value);
  const password = connection !== undefined && holdsLiteralPassword(value);
  if (names.length === 0 && !password) return {};
  const suggested = connection?.suggested;
  return {
    ...(names.length === 0
      ? {}
      : {
          badge: {
            text: 'env',
            title: `Environment variable${names.length > 1 ? 's' : ''} ${names.join(', ')}`,
          },
        }),
    notes: (
      <>
        {password && (
          <p className="field-warning">
            {PASSWORD_WARNING}
            {suggested !== undefined && (
              <>
                {' '}
                <button
                  type="button"
                  className="field-action"
                  title="The variable then holds the whole value, where the job runs"
                  onClick={() => onChange(suggested)}
                >
                  Use {suggested}
                </button>
              </>
            )}
          </p>
        )}
        {names.length > 0 && (
          <p className="field-env">
            {names.join(', ')}: {ENV_HINT}
          </p>
        )}
      </>
    ),
  };
}

/** "a, b or c". */
function wordList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
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
  if (field.type === 'choice')
    parts.push(`Type ${wordList(field.options)} as a word; any other value as JSON.`);
  return parts.length === 0 ? undefined : parts.join(' ');
}

export function SchemaField({ field, value, onChange, problems, at, note, connection }: SchemaFieldProps) {
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
          {...(field.type === 'string' ? secretNotes(value, connection, onChange) : {})}
          at={at}
          suggestions={field.type === 'choice' ? field.options : undefined}
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
