// The ports of an operator as the inspector lists them: its outputs (the kind's own, those its
// code emits to, and any an edge leaves from) each with the edges on it, and its input edges.
// Ports are not stored in the job file; they come from the kind table and from the code's text,
// the same way the validator finds them.
import { KINDS, scanEmittedPorts } from '../../engine/graph/index.js';
import { findOperator } from '../document/draftEdits';
import {
  type DraftEdge,
  draftEdges,
  edgePort,
  isObject,
  type JobDraft,
  operatorKind,
  stringField,
} from '../document/jobDraft';

export interface OutputPort {
  readonly name: string;
  readonly edges: readonly DraftEdge[];
  /** False for a port only an edge names: neither the kind nor the code emits to it. */
  readonly emitted: boolean;
}

export interface OperatorPorts {
  readonly outputs: readonly OutputPort[];
  readonly inputs: readonly DraftEdge[];
  /** The code names a port with an expression: it may emit to ports not listed. */
  readonly dynamic: boolean;
  /** A sink has no outputs at all. */
  readonly hasOutputs: boolean;
}

export function operatorPorts(draft: JobDraft, id: string): OperatorPorts {
  const op = findOperator(draft, id);
  const kind = op === undefined ? undefined : operatorKind(op);
  const edges = draftEdges(draft);
  const outgoing = edges.filter((e) => e.from === id);
  const hasOutputs = kind === undefined || KINDS[kind].role !== 'sink';

  const emitted = new Set<string>();
  let dynamic = false;
  if (hasOutputs) {
    emitted.add('out');
    if (kind !== undefined) for (const port of KINDS[kind].fixedPorts) emitted.add(port);
    const code = op !== undefined && isObject(op.params) ? op.params.code : undefined;
    if (kind !== undefined && KINDS[kind].functionName !== undefined && typeof code === 'string') {
      const scanned = scanEmittedPorts(code);
      for (const port of scanned.ports) emitted.add(port);
      dynamic = scanned.dynamic;
    }
  }
  const names = [...emitted];
  for (const e of outgoing) if (!names.includes(edgePort(e))) names.push(edgePort(e));

  return {
    outputs: names.map((name) => ({
      name,
      edges: outgoing.filter((e) => edgePort(e) === name),
      emitted: emitted.has(name),
    })),
    inputs: edges.filter((e) => stringField(e, 'to') === id),
    dynamic,
    hasOutputs,
  };
}
