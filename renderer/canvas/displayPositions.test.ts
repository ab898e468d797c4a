import { describe, expect, it } from 'vitest';
import type { JobDraft, XY } from '../document/jobDraft';
import { displayPositions } from './displayPositions';
import { flowModel } from './flowModel';

const model = flowModel({
  format: 'pipewright.job/1',
  name: 'j',
  operators: [{ id: 'a', kind: 'map' }, { id: 'b', kind: 'map' }, { id: 'a', kind: 'map' }, { kind: 'map' }],
  edges: [],
} as JobDraft);

describe('display positions', () => {
  it('takes saved positions first, lays out the rest once, and remembers where it put them', () => {
    const remembered = new Map<string, XY>();
    let layouts = 0;
    const layout = () => {
      layouts++;
      return { a: { x: 500, y: 500 }, b: { x: 300, y: 60 } };
    };
    const first = displayPositions(model, { a: { x: 0, y: 0 } }, remembered, layout);
    expect(first.get('a')).toEqual({ x: 0, y: 0 });
    expect(first.get('b')).toEqual({ x: 300, y: 60 });
    expect(layouts).toBe(1);
    expect(remembered.get('b')).toEqual({ x: 300, y: 60 });

    const again = displayPositions(model, { a: { x: 40, y: 0 } }, remembered, () => {
      throw new Error('laid out again');
    });
    expect(again.get('b')).toEqual({ x: 300, y: 60 });
  });

  it('puts operators that cannot have a position of their own in a row below the rest', () => {
    const positions = displayPositions(
      model,
      { a: { x: 0, y: 0 }, b: { x: 100, y: 200 } },
      new Map(),
      () => ({}),
    );
    const duplicate = positions.get('~op2')!;
    const anonymous = positions.get('~op3')!;
    expect(duplicate.y).toBeGreaterThan(200);
    expect(anonymous.y).toBe(duplicate.y);
    expect(anonymous.x).toBeGreaterThan(duplicate.x);
  });
});
