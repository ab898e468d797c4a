// process: user code with keyed state and timers when its inputs are keyed.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { code } from './paramTypes.js';

export const processKind = defineKind({
  kind: 'process',
  role: 'transform',
  params: z.strictObject({ code }),
  ports: { inputs: true, outputs: ['out'] },
  userCode: { functionName: 'process', signature: 'function process(record, ctx) { ctx.emit(record); }' },
  keyedInput: 'when-code-uses-state',
  available: true,
  designer: {
    label: 'Process',
    group: 'keyed',
    description:
      'Runs process(record, ctx) on each record, with keyed state and timers when its inputs are keyed.',
    idBase: 'process',
    defaultParams: { code: 'function process(record, ctx) {\n  ctx.emit(record);\n}\n' },
    icon: 'M6 2.5c-1.5 0-2 .5-2 2v2C4 7.5 3.5 8 2.5 8 3.5 8 4 8.5 4 9.5v2c0 1.5.5 2 2 2 M10 2.5c1.5 0 2 .5 2 2v2c0 1 .5 1.5 1.5 1.5-1 0-1.5.5-1.5 1.5v2c0 1.5-.5 2-2 2',
  },
});
