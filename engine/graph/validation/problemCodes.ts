// Every code a Problem from the validator can carry. Codes are stable: tools match on them.
export const PROBLEM_CODES = [
  'malformed-json',
  'format',
  'required',
  'wrong-type',
  'invalid-value',
  'unknown-field',
  'unknown-kind',
  'not-yet-available',
  'missing-function',
  'syntax-error',
  'forbidden-in-code',
  'parallelism-above-max',
  'duplicate-operator-id',
  'duplicate-edge-id',
  'unknown-operator',
  'unknown-port',
  'edge-from-sink',
  'edge-to-source',
  'missing-key',
  'unexpected-key',
  'forward-parallelism',
  'feedback-not-hash',
  'keyed-input',
  'cycle',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];
