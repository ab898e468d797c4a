// The rules about operators by themselves: ids, kinds this version runs, parallelism, code.
import type { Finding } from './finding.js';
import { operatorLabel } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import { codeFindings } from './userCodeChecks.js';
import { quote } from './valueWords.js';

export const duplicateOperatorIds: GraphRule = ({ operators, byId }) => {
  const findings: Finding[] = [];
  for (const op of operators) {
    const first = byId.get(op.id)!;
    if (first === op) continue;
    findings.push({
      code: 'duplicate-operator-id',
      message: `operator id ${quote(op.id)} is used more than once (operators[${first.index}] and operators[${op.index}])`,
      path: ['operators', op.index, 'id'],
      ids: [op.id],
    });
  }
  return findings;
};

export const duplicateEdgeIds: GraphRule = ({ edges }) => {
  const findings: Finding[] = [];
  const firstIndex = new Map<string, number>();
  for (const edge of edges) {
    if (edge.id === undefined) continue;
    const first = firstIndex.get(edge.id);
    if (first === undefined) firstIndex.set(edge.id, edge.index);
    else {
      findings.push({
        code: 'duplicate-edge-id',
        message: `edge id ${quote(edge.id)} is used more than once (edges[${first}] and edges[${edge.index}])`,
        path: ['edges', edge.index, 'id'],
        ids: [edge.id],
      });
    }
  }
  return findings;
};

export const kindNotAvailable: GraphRule = ({ operators }) =>
  operators
    .filter((op) => op.kind !== undefined && !op.kind.available)
    .map((op) => ({
      code: 'not-yet-available',
      message: `${operatorLabel(op)}: kind ${quote(op.kind!.kind)} is not available yet in this version of Pipewright`,
      path: ['operators', op.index, 'kind'],
      ids: [op.id],
    }));

export const parallelismAboveMax: GraphRule = ({ operators, maxParallelism }) =>
  maxParallelism === undefined
    ? []
    : operators
        .filter((op) => op.parallelism !== undefined && op.parallelism > maxParallelism)
        .map((op) => ({
          code: 'parallelism-above-max',
          message: `${operatorLabel(op)}: parallelism ${op.parallelism} is above settings.maxParallelism (${maxParallelism})`,
          path: ['operators', op.index, 'parallelism'],
          ids: [op.id],
        }));

export const userCodeFaults: GraphRule = ({ operators }) =>
  operators.flatMap((op) =>
    op.kind === undefined || op.code === undefined ? [] : codeFindings(op, op.kind, op.code),
  );
