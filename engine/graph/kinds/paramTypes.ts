// The param shapes several kinds share, worded once: the validator quotes these messages and
// descriptions to users, and the JSON Schema export publishes them.
import { z } from 'zod';

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const id = z.string().regex(ID_PATTERN, 'must match [A-Za-z0-9_-]{1,64}');

export const fieldPath = z
  .string()
  .regex(/^[^.]+(\.[^.]+)*$/, 'must be a field path such as "owner" or "item.owner"')
  .describe('A dotted field path into the record, e.g. "owner" or "item.owner".');

export const code = z.string().describe('JavaScript that defines the function the operator kind calls.');

export const relativePath = z
  .string()
  .min(1)
  .describe('A file path; a relative one resolves against the directory of the job file.');

export const nonNegativeMs = z.number().int().min(0);
