import { describe, expect, it } from 'vitest';
import { describeCycle, findCycles, stronglyConnectedComponents } from './cycles.js';

const e = (from: string, to: string, id = `${from}${to}`) => ({ id, from, to });

describe('stronglyConnectedComponents', () => {
  it('puts every node of an acyclic graph in its own component, in node order', () => {
    expect(stronglyConnectedComponents(['c', 'a', 'b'], [e('a', 'b'), e('b', 'c')])).toEqual([
      ['c'],
      ['a'],
      ['b'],
    ]);
  });

  it('groups the nodes of each cycle, members in node order', () => {
    const nodes = ['src', 'x', 'y', 'z', 'p', 'q', 'sink'];
    const edges = [
      e('src', 'z'),
      e('z', 'y'),
      e('y', 'x'),
      e('x', 'z'),
      e('x', 'q'),
      e('q', 'p'),
      e('p', 'q'),
      e('p', 'sink'),
    ];
    expect(stronglyConnectedComponents(nodes, edges)).toEqual([
      ['src'],
      ['x', 'y', 'z'],
      ['p', 'q'],
      ['sink'],
    ]);
  });

  it('ignores edges to unknown nodes and duplicate node names', () => {
    expect(
      stronglyConnectedComponents(['a', 'b', 'a'], [e('a', 'ghost'), e('ghost', 'a'), e('b', 'a')]),
    ).toEqual([['a'], ['b']]);
  });

  it('does not depend on the order of the edges', () => {
    const edges = [e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd'), e('d', 'e'), e('e', 'd')];
    const expected = [
      ['a', 'b', 'c'],
      ['d', 'e'],
    ];
    expect(stronglyConnectedComponents(['a', 'b', 'c', 'd', 'e'], edges)).toEqual(expected);
    expect(stronglyConnectedComponents(['a', 'b', 'c', 'd', 'e'], [...edges].reverse())).toEqual(expected);
  });

  it('handles a chain far longer than the call stack would allow recursively', () => {
    const n = 100_000;
    const nodes = Array.from({ length: n }, (_, i) => `n${i}`);
    const edges = nodes.slice(1).map((node, i) => e(nodes[i]!, node));
    edges.push(e(`n${n - 1}`, 'n0'));
    const components = stronglyConnectedComponents(nodes, edges);
    expect(components).toHaveLength(1);
    expect(components[0]).toHaveLength(n);
  });
});

describe('findCycles', () => {
  it('finds nothing in a DAG', () => {
    expect(findCycles(['a', 'b', 'c'], [e('a', 'b'), e('a', 'c'), e('b', 'c')])).toEqual([]);
  });

  it('reports the operators of a cycle in order along it, with the edges between them', () => {
    const cycles = findCycles(
      ['a', 'b', 'c', 'd'],
      [e('c', 'a', 'e3'), e('a', 'b', 'e1'), e('b', 'c', 'e2')],
    );
    expect(cycles).toHaveLength(1);
    expect(cycles[0]!.nodes).toEqual(['a', 'b', 'c']);
    expect(cycles[0]!.edges.map((x) => x.id)).toEqual(['e1', 'e2', 'e3']);
    expect(describeCycle(cycles[0]!)).toBe('"a" -> "b" -> "c" -> "a"');
  });

  it('reports a self-loop as a cycle of one operator', () => {
    const cycles = findCycles(['a', 'b'], [e('a', 'b'), e('b', 'b', 'loop')]);
    expect(cycles).toEqual([{ nodes: ['b'], edges: [{ id: 'loop', from: 'b', to: 'b' }] }]);
    expect(describeCycle(cycles[0]!)).toBe('"b" -> "b"');
  });

  it('reports one cycle per component, the shortest through its first node', () => {
    const nodes = ['a', 'b', 'c', 'd', 'x', 'y'];
    const edges = [e('a', 'b'), e('b', 'c'), e('c', 'd'), e('d', 'a'), e('b', 'a'), e('x', 'y'), e('y', 'x')];
    const cycles = findCycles(nodes, edges);
    expect(cycles.map((c) => c.nodes)).toEqual([
      ['a', 'b'],
      ['x', 'y'],
    ]);
    expect(cycles[0]!.edges.map((x) => x.id)).toEqual(['ab', 'ba']);
  });

  it('prefers the earlier of two parallel edges', () => {
    const cycles = findCycles(['a', 'b'], [e('a', 'b', 'first'), e('a', 'b', 'second'), e('b', 'a', 'back')]);
    expect(cycles[0]!.edges.map((x) => x.id)).toEqual(['first', 'back']);
  });

  it('every reported edge joins consecutive nodes of the cycle', () => {
    const nodes = ['a', 'b', 'c', 'd', 'e'];
    const edges = [e('a', 'c'), e('c', 'e'), e('e', 'b'), e('b', 'd'), e('d', 'a'), e('c', 'b')];
    const [cycle] = findCycles(nodes, edges);
    expect(cycle).toBeDefined();
    const { nodes: ring, edges: links } = cycle!;
    expect(links).toHaveLength(ring.length);
    links.forEach((link, i) => {
      expect(link.from).toBe(ring[i]);
      expect(link.to).toBe(ring[(i + 1) % ring.length]);
    });
    expect(ring[0]).toBe('a');
  });
});
