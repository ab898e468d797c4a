import { describe, expect, it } from 'vitest';
import type { StateAccess } from '../protocol/runProtocol.js';
import { stateCells } from './stateCells.js';

const access = (fields: Partial<StateAccess> & Pick<StateAccess, 'type' | 'op'>): StateAccess => ({
  state: 's',
  key: 'k',
  ...fields,
});

describe('stateCells', () => {
  it('a value and a list are one cell each, read and written whole', () => {
    const read = stateCells('op', access({ type: 'value', op: 'read' }));
    expect(read.writes).toEqual([]);
    expect(read.read).toEqual({ state: 's', key: 'k', cells: [expect.any(String)] });
    expect(stateCells('op', access({ type: 'value', op: 'write' })).writes).toEqual(read.read!.cells);
    expect(stateCells('op', access({ type: 'value', op: 'clear' })).writes).toEqual(read.read!.cells);
    const list = stateCells('op', access({ type: 'list', op: 'read' }));
    expect(stateCells('op', access({ type: 'list', op: 'write' })).writes).toEqual(list.read!.cells);
    expect(list.read!.cells).not.toEqual(read.read!.cells);
  });

  it('a map element read depends on that element and on clearing, a scan on every write', () => {
    const get = stateCells('op', access({ type: 'map', op: 'read', element: 'i1' }));
    const [element, cleared] = get.read!.cells;
    expect(get.read).toMatchObject({ state: 's', key: 'k', element: 'i1' });
    const set = stateCells('op', access({ type: 'map', op: 'write', element: 'i1' }));
    const scan = stateCells('op', access({ type: 'map', op: 'read' })).read!.cells;
    expect(set.writes).toEqual([element, ...scan]);
    expect(stateCells('op', access({ type: 'map', op: 'delete', element: 'i1' })).writes).toEqual(set.writes);
    expect(stateCells('op', access({ type: 'map', op: 'clear' })).writes).toEqual([cleared, ...scan]);
    // Another element, key, state or operator is another cell.
    expect(stateCells('op', access({ type: 'map', op: 'write', element: 'i2' })).writes[0]).not.toBe(element);
    expect(
      stateCells('op', access({ type: 'map', op: 'read', element: 'i1', key: 'k2' })).read!.cells[0],
    ).not.toBe(element);
    expect(stateCells('other', access({ type: 'map', op: 'read', element: 'i1' })).read!.cells[0]).not.toBe(
      element,
    );
  });

  it('keys that are equal as JSON are one cell whatever their field order', () => {
    const a = stateCells('op', access({ type: 'value', op: 'read', key: { a: 1, b: 2 } }));
    const b = stateCells('op', access({ type: 'value', op: 'write', key: { b: 2, a: 1 } }));
    expect(b.writes).toEqual(a.read!.cells);
  });
});
