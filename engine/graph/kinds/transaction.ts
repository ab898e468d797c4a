// transaction: one record is one serializable multi-key transaction over the rows of the
// operator's tables; an aborted one emits only to port "aborted". The engine routes each
// transaction to the subtasks owning its rows, so its inputs may be partitioned any way.
import { z } from 'zod';
import { defineKind } from './kindDescriptor.js';
import { code, id } from './paramTypes.js';

export const transactionKind = defineKind({
  kind: 'transaction',
  role: 'transform',
  params: z.strictObject({
    tables: z.array(id).min(1),
    code,
  }),
  ports: { inputs: true, outputs: ['out', 'aborted'] },
  userCode: {
    functionName: 'transact',
    // The contract names two functions: keys(record) says which rows transact(record, tx) touches.
    requiredFunctions: ['keys', 'transact'],
    signature: 'function keys(record) { return [[table, key]]; }\nfunction transact(record, tx) { }',
  },
  keyedInput: 'routes-itself',
  available: true,
  designer: {
    label: 'Transaction',
    group: 'keyed',
    description: 'Runs each record as one serializable transaction over the rows keys(record) names.',
    idBase: 'transaction',
    defaultParams: {
      tables: ['rows'],
      code: 'function keys(record) {\n  return [];\n}\n\nfunction transact(record, tx) {\n}\n',
    },
    icon: 'M3 5.5h10 M10.5 3 13 5.5 10.5 8 M13 10.5H3 M5.5 8 3 10.5 5.5 13',
  },
});
