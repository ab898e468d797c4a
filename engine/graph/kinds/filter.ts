// filter: keeps the records user code says yes to.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { code } from './paramTypes.js';

export const filterKind = defineKind({
  kind: 'filter',
  role: 'transform',
  params: z.strictObject({ code }),
  ports: { inputs: true, outputs: ['out'] },
  userCode: { functionName: 'filter', signature: 'function filter(record, ctx) { return true; }' },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Filter',
    group: 'transform',
    description: 'Keeps the records for which filter(record, ctx) is true.',
    idBase: 'filter',
    defaultParams: { code: 'function filter(record, ctx) {\n  return true;\n}\n' },
    icon: 'M2 3h12L9.5 8.5v5l-3-1.5V8.5z',
  },
});
