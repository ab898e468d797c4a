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
    tables: z
      .array(id)
      .min(1)
      .describe(
        'The names of the tables this operator owns; a row is a value under a key in one of them, kept as keyed state.',
      ),
    code: code.describe(
      'JavaScript that defines keys(record), the [table, key] rows a record touches, and transact(record, tx), which reads and writes them.',
    ),
  }),
  ports: { inputs: true, outputs: ['out', 'aborted'] },
  userCode: {
    functionName: 'transact',
    // The contract names two functions: keys(record) says which rows transact(record, tx) touches.
    requiredFunctions: ['keys', 'transact'],
    // One tx call a line: the inspector's column is narrow.
    signature: [
      'function keys(record) { return [[table, key]]; }',
      'function transact(record, tx) { }',
      '// tx.get(table, key)',
      '// tx.set(table, key, value)',
      '// tx.delete(table, key)',
      '// tx.abort(reason)',
      '// tx.emit(record, port?)',
      '// tx.timestamp',
    ].join('\n'),
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
      code: [
        'function keys(record) {',
        "  return [['rows', record.key]];",
        '}',
        '',
        'function transact(record, tx) {',
        "  const count = (tx.get('rows', record.key) ?? 0) + 1;",
        "  tx.set('rows', record.key, count);",
        '  tx.emit({ key: record.key, count });',
        '}',
        '',
      ].join('\n'),
    },
    icon: 'M3 5.5h10 M10.5 3 13 5.5 10.5 8 M13 10.5H3 M5.5 8 3 10.5 5.5 13',
    cardLine: ({ tables }) => {
      const names = Array.isArray(tables) ? tables.filter((t): t is string => typeof t === 'string') : [];
      return names.length === 0 ? undefined : `tables: ${names.join(', ')}`;
    },
  },
});
