// Cycle analysis of a job graph. Deterministic (everything follows the order of the input
// lists) so that the validator reports the same cycles in the same words on every run, and
// iterative so that a long chain of operators cannot overflow the call stack.

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
}

/** A cycle: `nodes[0] -> nodes[1] -> ... -> nodes[0]`; `edges[i]` goes from `nodes[i]` to the next node. */
export interface Cycle<E extends GraphEdge = GraphEdge> {
  readonly nodes: readonly string[];
  readonly edges: readonly E[];
}

interface IndexedGraph<E extends GraphEdge> {
  readonly names: readonly string[];
  readonly indexOf: ReadonlyMap<string, number>;
  /** Outgoing edges per node, in the order of the input edge list. */
  readonly out: readonly (readonly { readonly to: number; readonly edge: E }[])[];
}

// Edges that name a node not in `nodes` are left out: the validator reports those separately.
function indexGraph<E extends GraphEdge>(nodes: readonly string[], edges: readonly E[]): IndexedGraph<E> {
  const indexOf = new Map<string, number>();
  const names: string[] = [];
  for (const node of nodes) {
    if (!indexOf.has(node)) {
      indexOf.set(node, names.length);
      names.push(node);
    }
  }
  const out: { to: number; edge: E }[][] = names.map(() => []);
  for (const edge of edges) {
    const from = indexOf.get(edge.from);
    const to = indexOf.get(edge.to);
    if (from !== undefined && to !== undefined) out[from]!.push({ to, edge });
  }
  return { names, indexOf, out };
}

function tarjan(graph: IndexedGraph<GraphEdge>): number[][] {
  const count = graph.names.length;
  const index = new Array<number>(count).fill(-1);
  const low = new Array<number>(count).fill(0);
  const onStack = new Array<boolean>(count).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;

  for (let root = 0; root < count; root++) {
    if (index[root] !== -1) continue;
    // Each frame is a node and the position of the next outgoing edge to explore.
    const frames: [node: number, next: number][] = [[root, 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = true;
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const v = frame[0];
      const outgoing = graph.out[v]!;
      if (frame[1] < outgoing.length) {
        const w = outgoing[frame[1]]!.to;
        frame[1]++;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = true;
          frames.push([w, 0]);
        } else if (onStack[w]) {
          low[v] = Math.min(low[v]!, index[w]!);
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low[parent[0]] = Math.min(low[parent[0]]!, low[v]!);
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = false;
          component.push(w);
        } while (w !== v);
        components.push(component.sort((a, b) => a - b));
      }
    }
  }
  return components.sort((a, b) => a[0]! - b[0]!);
}

/**
 * The strongly connected components of a directed graph (Tarjan's algorithm). Every node is in
 * exactly one component; components, and the members of each, follow the first appearance of
 * the nodes in `nodes`. Edges naming a node that is not in `nodes` are ignored.
 */
export function stronglyConnectedComponents(
  nodes: readonly string[],
  edges: readonly GraphEdge[],
): string[][] {
  const graph = indexGraph(nodes, edges);
  return tarjan(graph).map((component) => component.map((i) => graph.names[i]!));
}

/**
 * One cycle per strongly connected component that contains a cycle (several nodes, or one node
 * with an edge to itself): the shortest cycle through the component's first node, preferring
 * earlier edges. Enumerating every elementary cycle could be exponential; one per component is
 * enough to show the user where the loop is. Ordered like `stronglyConnectedComponents`.
 */
export function findCycles<E extends GraphEdge>(nodes: readonly string[], edges: readonly E[]): Cycle<E>[] {
  const graph = indexGraph(nodes, edges);
  const cycles: Cycle<E>[] = [];
  for (const component of tarjan(graph)) {
    const start = component[0]!;
    if (component.length === 1) {
      const self = graph.out[start]!.find((o) => o.to === start);
      if (self) cycles.push({ nodes: [graph.names[start]!], edges: [self.edge] });
      continue;
    }
    const members = new Set(component);
    // Breadth-first from the start node, inside the component, until an edge leads back to it.
    const via = new Map<number, { from: number; edge: E }>();
    const queue = [start];
    let closing: { from: number; edge: E } | undefined;
    for (let head = 0; head < queue.length && !closing; head++) {
      const v = queue[head]!;
      for (const { to, edge } of graph.out[v]!) {
        if (!members.has(to)) continue;
        if (to === start) {
          closing = { from: v, edge };
          break;
        }
        if (!via.has(to)) {
          via.set(to, { from: v, edge });
          queue.push(to);
        }
      }
    }
    // A component of several nodes always has a path back to its first node.
    if (!closing) throw new Error('strongly connected component without a cycle');
    const pathNodes: number[] = [];
    const pathEdges: E[] = [closing.edge];
    for (let v = closing.from; v !== start; ) {
      const step = via.get(v)!;
      pathNodes.push(v);
      pathEdges.push(step.edge);
      v = step.from;
    }
    pathNodes.push(start);
    cycles.push({
      nodes: pathNodes.reverse().map((i) => graph.names[i]!),
      edges: pathEdges.reverse(),
    });
  }
  return cycles;
}

/** `"a" -> "b" -> "a"`: a cycle as the validator's messages show it. */
export function describeCycle(cycle: Cycle): string {
  return [...cycle.nodes, cycle.nodes[0]!].map((n) => JSON.stringify(n)).join(' -> ');
}
