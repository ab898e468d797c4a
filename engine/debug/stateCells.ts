// Which pieces of keyed state a state access reads and writes, for record traces: a hop that
// read state depends on the step that last wrote what it read. A cell is a value, a list, a map
// as a whole (what a scan reads), one element of a map, or a map's clearing (an element read
// depends on the later of its own last write and the map's last clear).
import { canonicalJson } from '../graph/canonicalJson.js';
import type { StateAccess } from '../protocol/runProtocol.js';

/** What a hop read, and the cells any of whose writes it depends on. */
export interface StateRead {
  readonly state: string;
  readonly key: unknown;
  readonly element?: unknown;
  readonly cells: readonly string[];
}

export interface CellAccess {
  readonly read?: StateRead;
  readonly writes: readonly string[];
}

export function stateCells(operator: string, access: StateAccess): CellAccess {
  const base = `${operator}\0${access.state}\0${access.type}\0${canonicalJson(access.key, 'state key')}`;
  const reading = access.op === 'read';
  if (access.type !== 'map') {
    return reading
      ? { read: { state: access.state, key: access.key, cells: [base] }, writes: [] }
      : { writes: [base] };
  }
  const cleared = `${base}\0clear`;
  if (!('element' in access)) {
    if (reading) return { read: { state: access.state, key: access.key, cells: [base] }, writes: [] };
    return { writes: access.op === 'clear' ? [cleared, base] : [base] };
  }
  const element = `${base}\0${canonicalJson(access.element, 'map key')}`;
  if (reading) {
    return {
      read: { state: access.state, key: access.key, element: access.element, cells: [element, cleared] },
      writes: [],
    };
  }
  return { writes: [element, base] };
}
