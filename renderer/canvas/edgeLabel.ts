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

/** The label drawn on the edge: the partitioning, preceded by the port when it is a side output. */
export function edgeLabelText(edge: DraftEdge): string {
  const port = edgePort(edge);
  const partition = partitionText(edge);
  return port === 'out' ? partition : `${port} → ${partition}`;
}

/** "Edge e2 from owners to owners, hash(to), feedback". */
export function edgeAriaLabel(edge: DraftEdge): string {
  const id = stringField(edge, 'id') ?? '(no id)';
  const from = stringField(edge, 'from') ?? '?';
  const to = stringField(edge, 'to') ?? '?';
  const feedback = edge.feedback === true ? ', feedback' : '';
  return `Edge ${id} from ${from} to ${to}, ${partitionText(edge)}${feedback}`;
}
