// The rules about a transaction operator's params that its schema cannot say field by field: each
// table is named once (a table is the keyed state of that name, so two entries would be one
// table). An empty or missing `tables`, and code lacking keys or transact, are the schema's and
// userCodeChecks' problems; this rule reads only table names of the right shape.
import { transactionKind } from '../kinds/transaction.js';
import type { Finding } from './finding.js';
import type { OperatorFacts } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import { quote } from './valueWords.js';

function transactionFindings(op: OperatorFacts): Finding[] {
  const tables = op.params?.tables;
  if (!Array.isArray(tables)) return [];
  const findings: Finding[] = [];
  const first = new Map<string, number>();
  tables.forEach((table: unknown, index) => {
    if (typeof table !== 'string') return;
    const earlier = first.get(table);
    if (earlier === undefined) {
      first.set(table, index);
      return;
    }
    findings.push({
      code: 'invalid-value',
      message: `operator ${quote(op.id)}: table ${quote(table)} is named twice in params.tables (tables[${earlier}] and tables[${index}])`,
      path: ['operators', op.index, 'params', 'tables', index],
      ids: [op.id],
    });
  });
  return findings;
}

/**
 * A feedback edge into a transaction is refused: the operator's serial order is made from its
 * regular inputs' channels (each upstream subtask's records in order), and a loop's records
 * have no place in it that would not depend on timing. A transaction that must feed itself
 * emits to a `process` that holds the records, or the loop goes round a `process` instead.
 */
export const transactionParams: GraphRule = ({ operators, edges }) => [
  ...operators.flatMap((op) => (op.kind?.kind === transactionKind.kind ? transactionFindings(op) : [])),
  ...edges.flatMap((edge): Finding[] =>
    edge.feedback === true && edge.toOp?.kind?.kind === transactionKind.kind
      ? [
          {
            code: 'invalid-value',
            message: `edge ${quote(edge.id ?? String(edge.index))}: a feedback edge cannot lead into transaction operator ${quote(edge.toOp.id)}; its serial order is made from its regular inputs only`,
            path: ['edges', edge.index, 'feedback'],
            ids: [edge.id ?? '', edge.toOp.id].filter((id) => id !== ''),
          },
        ]
      : [],
  ),
];
