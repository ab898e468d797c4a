// map: one record in, one record out, by user code.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { code } from './paramTypes.js';

export const mapKind = defineKind({
  kind: 'map',
  role: 'transform',
  params: z.strictObject({ code }),
  ports: { inputs: true, outputs: ['out'] },
  userCode: { functionName: 'map', signature: 'function map(record, ctx) { return record; }' },
  keyedInput: 'never',
  available: true,
  designer: {
    label: 'Map',
    group: 'transform',
    description: 'Turns each record into another with map(record, ctx).',
    idBase: 'map',
    defaultParams: { code: 'function map(record, ctx) {\n  return record;\n}\n' },
    icon: 'M2 8h10.5 M9 4.5 12.5 8 9 11.5',
  },
});
