// flatMap: any number of records out for each one in, by user code.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { code } from './paramTypes.js';

export const flatMapKind = defineKind({
  kind: 'flatMap',
  role: 'transform',
  params: z.strictObject({ code }),
  ports: { inputs: true, outputs: ['out'] },
  userCode: { functionName: 'flatMap', signature: 'function flatMap(record, ctx) { return [record]; }' },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Flat map',
    group: 'transform',
    description:
      'Turns each record into any number of records: flatMap(record, ctx) returns an array or emits.',
    idBase: 'flatMap',
    defaultParams: { code: 'function flatMap(record, ctx) {\n  return [record];\n}\n' },
    icon: 'M2 8h4 M6 8l6.5-4.5 M6 8h6.5 M6 8l6.5 4.5',
  },
});
