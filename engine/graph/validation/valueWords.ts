// Values and types in words, as messages quote them.
import { isRecord } from './jsonPath.js';

/** A message is one line to read: a value of thousands of characters is shown by its start. */
export const quote = (text: string): string =>
  text.length > 100
    ? `${JSON.stringify(text.slice(0, 100))}… (${text.length} characters)`
    : JSON.stringify(text);

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return value.length > 40 ? `${quote(value.slice(0, 40))}...` : quote(value);
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  return String(value);
}

const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** zod's name of an expected type, in words: "int" -> "a whole number". */
export function expectedWords(expected: string): string {
  return EXPECTED_WORDS[expected] ?? `a ${expected}`;
}
