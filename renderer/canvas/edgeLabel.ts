// How an edge is named on the canvas: its partitioning as the user would write it, the side
// output it leaves from, and a sentence for assistive technology (and for tests).
import { type DraftEdge, edgePort, stringField } from '../document/jobDraft';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `forward`, `rebalance`, `hash(owner)`, `hash(a, b)`, `broadcast`; a malformed edge shows what it has. */
export function partitionText(edge: DraftEdge): string {
  const partition = edge.partition;
  if (partition === 'hash') {
    const key = edge.key;
    if (typeof key === 'string') return `hash(${key})`;
    if (Array.isArray(key) && key.length > 0) return `hash(${key.map(shown).join(', ')})`;
    return 'hash(?)';
  }
  if (typeof partition === 'string') return partition;
  return partition === undefined ? 'no partition' : shown(partition);
}

/**
 * Whether the engine broadcasts the edge whatever its partitioning says: into a transaction
 * every subtask takes every record, in one order (engine/graph/plan.ts, `routed`).
 */
export function broadcastByPlan(edge: DraftEdge, targetKind: unknown): boolean {
  return targetKind === 'transaction' && edge.feedback !== true;
}

/** The partitioning the run gives the edge: the file's, or what the planner makes of it. */
export function plannedPartitionText(edge: DraftEdge, targetKind?: unknown): string {
  return broadcastByPlan(edge, targetKind) ? 'broadcast' : partitionText(edge);
}

/**
 * The label drawn on the edge: the partitioning the run gives it (`targetKind`: the kind of the
 * operator it goes to), preceded by the port when it is a side output.
 */
export function edgeLabelText(edge: DraftEdge, targetKind?: unknown): string {
  const port = edgePort(edge);
  const partition = plannedPartitionText(edge, targetKind);
  return port === 'out' ? partition : `${port} → ${partition}`;
}

/** "Edge e2 from owners to owners, hash(to), feedback". */
export function edgeAriaLabel(edge: DraftEdge, targetKind?: unknown): string {
  const id = stringField(edge, 'id') ?? '(no id)';
  const from = stringField(edge, 'from') ?? '?';
  const to = stringField(edge, 'to') ?? '?';
  const feedback = edge.feedback === true ? ', feedback' : '';
  return `Edge ${id} from ${from} to ${to}, ${plannedPartitionText(edge, targetKind)}${feedback}`;
}
