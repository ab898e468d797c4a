// The ports an operator is drawn with. The kind's own side outputs and the ports its code emits
// to are what the user can wire; ports that edges already leave from are added too, so that an
// edge naming a port the code no longer emits to is still drawn (and marked by its problem)
// instead of silently disappearing.
import { isSource, KINDS, scanEmittedPorts } from '../../engine/graph/index.js';
import {
  type DraftEdge,
  type DraftOperator,
  edgePort,
  isObject,
  operatorKind,
  stringField,
} from '../document/jobDraft';

export interface PortHandle {
  /** The port name as the job file spells it. */
  readonly port: string;
  /** The React Flow handle id: the port name when it is safe inside a CSS selector, else a stand-in. */
  readonly handleId: string;
}

export interface OperatorPorts {
  readonly input: boolean;
  /** "out" first (unless the operator is a sink nothing leaves), then the named side outputs. */
  readonly outputs: readonly PortHandle[];
}

export const INPUT_HANDLE = 'in';

/** What the draft's edges use of each operator id: the ports they leave from, and whether any arrive. */
export interface EdgeUse {
  readonly outPorts: ReadonlyMap<string, ReadonlySet<string>>;
  readonly hasInput: ReadonlySet<string>;
}

export function edgeUse(edges: readonly DraftEdge[]): EdgeUse {
  const outPorts = new Map<string, Set<string>>();
  const hasInput = new Set<string>();
  for (const edge of edges) {
    const from = stringField(edge, 'from');
    const to = stringField(edge, 'to');
    if (from !== undefined) {
      const ports = outPorts.get(from) ?? new Set<string>();
      ports.add(edgePort(edge));
      outPorts.set(from, ports);
    }
    if (to !== undefined) hasInput.add(to);
  }
  return { outPorts, hasInput };
}

// React Flow looks handles up with a `[data-id="..."]` selector, so a port name from a foreign
// file must not reach it verbatim.
const SAFE_HANDLE = /^[A-Za-z0-9_-]{1,64}$/;

// Tokenising code is the expensive part, and the same code text is asked about on every edit.
const scanCache = new Map<string, readonly string[]>();
const SCAN_CACHE_LIMIT = 2000;

function emittedPorts(code: string): readonly string[] {
  let ports = scanCache.get(code);
  if (ports === undefined) {
    ports = [...scanEmittedPorts(code).ports];
    if (scanCache.size >= SCAN_CACHE_LIMIT) scanCache.clear();
    scanCache.set(code, ports);
  }
  return ports;
}

export function operatorPorts(op: DraftOperator, use: EdgeUse): OperatorPorts {
  const id = stringField(op, 'id');
  const kind = operatorKind(op);
  const used = id === undefined ? undefined : use.outPorts.get(id);
  const names: string[] = [];
  const add = (port: string) => {
    if (!names.includes(port)) names.push(port);
  };
  if (kind === undefined || KINDS[kind].role !== 'sink') add('out');
  if (kind !== undefined) for (const port of KINDS[kind].fixedPorts) add(port);
  const code = isObject(op.params) ? op.params.code : undefined;
  if (typeof code === 'string') for (const port of emittedPorts(code)) add(port);
  if (used !== undefined) for (const port of used) add(port);
  // An edge into a source is an error the Problems panel names; it still needs somewhere to land.
  const input = kind === undefined || !isSource(kind) || (id !== undefined && use.hasInput.has(id));
  return {
    input,
    outputs: names.map((port, k) => ({ port, handleId: SAFE_HANDLE.test(port) ? port : `~port${k}` })),
  };
}

export function handleOf(ports: OperatorPorts, port: string): string | undefined {
  return ports.outputs.find((p) => p.port === port)?.handleId;
}

export function portOf(ports: OperatorPorts, handleId: string): string | undefined {
  return ports.outputs.find((p) => p.handleId === handleId)?.port;
}
