// The rules about each edge: what it connects, from which port, and how it is partitioned.
// They run in this order, which is the order problems at one spot are listed in.
import type { Finding } from './finding.js';
import { type EdgeFacts, edgeIds, edgeLabel, type GraphContext, operatorLabel } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import { closest, didYouMean } from './suggestions.js';
import { usesKeyedState } from './userCodeChecks.js';
import { quote } from './valueWords.js';

/** A rule that looks at one edge at a time. */
function eachEdge(check: (edge: EdgeFacts, ctx: GraphContext) => Finding | undefined): GraphRule {
  return (ctx) => {
    const findings: Finding[] = [];
    for (const edge of ctx.edges) {
      const finding = check(edge, ctx);
      if (finding !== undefined) findings.push(finding);
    }
    return findings;
  };
}

export const edgeFromUnknownOperator = eachEdge((edge, { operatorsKnown, byId }) => {
  if (!operatorsKnown || edge.from === undefined || edge.fromOp !== undefined) return undefined;
  return {
    code: 'unknown-operator',
    message: `${edgeLabel(edge)} comes from unknown operator ${quote(edge.from)}${didYouMean(edge.from, [...byId.keys()])}`,
    path: ['edges', edge.index, 'from'],
    ids: [...edgeIds(edge), edge.from],
  };
});

export const edgeFromSink = eachEdge((edge) => {
  const from = edge.fromOp;
  if (from?.kind?.role !== 'sink') return undefined;
  return {
    code: 'edge-from-sink',
    message: `${edgeLabel(edge)} comes from ${operatorLabel(from)}, a sink: a sink has no outputs`,
    path: ['edges', edge.index, 'from'],
    ids: [...edgeIds(edge), from.id],
  };
});

export const edgeFromUnknownPort = eachEdge((edge, { portsOf }) => {
  const from = edge.fromOp;
  const kind = from?.kind;
  // An edge from a sink is reported as such: a sink has no ports to choose among.
  if (from === undefined || kind === undefined || kind.role === 'sink') return undefined;
  if (edge.fromPort === undefined) return undefined;
  const known = portsOf(from);
  if (!known || known.dynamic || known.ports.has(edge.fromPort)) return undefined;
  const list = [...known.ports].map(quote).join(', ');
  const hint = closest(edge.fromPort, known.ports);
  const which =
    kind.userCode === undefined
      ? `it has no such output (its outputs: ${list})`
      : `its code never emits to it (it emits to ${list})`;
  return {
    code: 'unknown-port',
    message:
      `${edgeLabel(edge)} comes from port ${quote(edge.fromPort)} of ${operatorLabel(from)}, but ${which}` +
      (hint === undefined ? '' : `; did you mean ${quote(hint)}?`),
    path: ['edges', edge.index, 'fromPort'],
    ids: [...edgeIds(edge), from.id],
  };
});

export const edgeToUnknownOperator = eachEdge((edge, { operatorsKnown, byId }) => {
  if (!operatorsKnown || edge.to === undefined || edge.toOp !== undefined) return undefined;
  return {
    code: 'unknown-operator',
    message: `${edgeLabel(edge)} goes to unknown operator ${quote(edge.to)}${didYouMean(edge.to, [...byId.keys()])}`,
    path: ['edges', edge.index, 'to'],
    ids: [...edgeIds(edge), edge.to],
  };
});

export const edgeToSource = eachEdge((edge) => {
  const to = edge.toOp;
  if (to?.kind?.role !== 'source') return undefined;
  return {
    code: 'edge-to-source',
    message: `${edgeLabel(edge)} goes to ${operatorLabel(to)}, a source: a source has no inputs`,
    path: ['edges', edge.index, 'to'],
    ids: [...edgeIds(edge), to.id],
  };
});

export const hashEdgeWithoutKey = eachEdge((edge) => {
  if (edge.partition !== 'hash' || edge.hasKey) return undefined;
  return {
    code: 'missing-key',
    message: `${edgeLabel(edge)} is hash-partitioned but has no key (give "key" a field path such as "owner")`,
    path: ['edges', edge.index, 'key'],
    ids: edgeIds(edge),
  };
});

export const keyOnOtherPartition = eachEdge((edge) => {
  if (edge.partition === undefined || edge.partition === 'hash' || !edge.hasKey) return undefined;
  return {
    code: 'unexpected-key',
    message: `${edgeLabel(edge)} has a key but is ${edge.partition}-partitioned; only hash edges take a key`,
    path: ['edges', edge.index, 'key'],
    ids: edgeIds(edge),
  };
});

export const forwardParallelism = eachEdge((edge) => {
  const from = edge.fromOp;
  const to = edge.toOp;
  if (edge.partition !== 'forward' || from?.parallelism === undefined || to?.parallelism === undefined)
    return undefined;
  if (from.parallelism === to.parallelism) return undefined;
  return {
    code: 'forward-parallelism',
    message:
      `${edgeLabel(edge)} is forward-partitioned but ${operatorLabel(from)} has parallelism ${from.parallelism} and ` +
      `${operatorLabel(to)} has parallelism ${to.parallelism}; forward needs equal parallelisms (use rebalance or hash)`,
    path: ['edges', edge.index, 'partition'],
    ids: [...edgeIds(edge), from.id, to.id],
  };
});

export const feedbackNotHash = eachEdge((edge) => {
  if (edge.feedback !== true || edge.partition === undefined || edge.partition === 'hash') return undefined;
  return {
    code: 'feedback-not-hash',
    message: `${edgeLabel(edge)} is a feedback edge, so it must be hash-partitioned (it is ${edge.partition})`,
    path: ['edges', edge.index, 'partition'],
    ids: edgeIds(edge),
  };
});

export const keyedInputNotHash = eachEdge((edge) => {
  const to = edge.toOp;
  // A non-hash feedback edge is reported by feedbackNotHash; saying it twice would not help.
  if (to?.kind === undefined || edge.partition === undefined || edge.partition === 'hash') return undefined;
  if (edge.feedback !== false) return undefined;
  const keyed = to.kind.keyedInput;
  const why =
    keyed === 'always'
      ? `is a ${to.kind.kind}, a keyed operator`
      : keyed === 'when-code-uses-state' && to.code !== undefined && usesKeyedState(to.code)
        ? 'uses keyed state or timers'
        : undefined;
  if (why === undefined) return undefined;
  return {
    code: 'keyed-input',
    message: `${operatorLabel(to)} ${why}, so its input ${edgeLabel(edge)} must be hash-partitioned (it is ${edge.partition})`,
    path: ['edges', edge.index, 'partition'],
    ids: [...edgeIds(edge), to.id],
  };
});
