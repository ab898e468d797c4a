// The graph rules, in the order they run. Problems are sorted by where they are in the file;
// two at the same spot keep this order, which tests and the designer's lists rely on.
import { connectorParams } from './connectorRules.js';
import { cycleWithoutFeedback } from './cycleRule.js';
import {
  edgeFromSink,
  edgeFromUnknownOperator,
  edgeFromUnknownPort,
  edgeToSource,
  edgeToUnknownOperator,
  feedbackNotHash,
  forwardParallelism,
  hashEdgeWithoutKey,
  keyedInputNotHash,
  keyOnOtherPartition,
} from './edgeRules.js';
import type { Finding } from './finding.js';
import { graphContext } from './graphFacts.js';
import type { GraphRule } from './graphRule.js';
import {
  duplicateEdgeIds,
  duplicateOperatorIds,
  kindNotAvailable,
  parallelismAboveMax,
  userCodeFaults,
} from './operatorRules.js';
import { sameFile } from './sameFileRule.js';
import { tooManySubtasks } from './sizeRule.js';
import { transactionParams } from './transactionRules.js';
import { windowParams } from './windowRules.js';

export const GRAPH_RULES: readonly GraphRule[] = [
  duplicateOperatorIds,
  duplicateEdgeIds,
  kindNotAvailable,
  parallelismAboveMax,
  tooManySubtasks,
  userCodeFaults,
  windowParams,
  transactionParams,
  connectorParams,
  edgeFromUnknownOperator,
  edgeFromSink,
  edgeFromUnknownPort,
  edgeToUnknownOperator,
  edgeToSource,
  hashEdgeWithoutKey,
  keyOnOtherPartition,
  forwardParallelism,
  feedbackNotHash,
  keyedInputNotHash,
  cycleWithoutFeedback,
  sameFile,
];

/** Every graph rule's findings about a job document (shape problems aside). */
export function graphFindings(root: Record<string, unknown>, jobDir?: string): Finding[] {
  const ctx = graphContext(root, jobDir);
  return GRAPH_RULES.flatMap((rule) => rule(ctx));
}
