import { describe, expect, it } from 'vitest';
import type { DraftEdge, DraftOperator } from '../document/jobDraft';
import { edgeUse, handleOf, operatorPorts, portOf } from './operatorPorts';

const noEdges = edgeUse([]);
const names = (op: DraftOperator, edges: DraftEdge[] = []) =>
  operatorPorts(op, edgeUse(edges)).outputs.map((p) => p.port);

describe('operator ports', () => {
  it('gives a source only an output and a sink only an input', () => {
    expect(operatorPorts({ id: 's', kind: 'source.jsonl', params: { path: 'a' } }, noEdges)).toEqual({
      input: false,
      outputs: [{ port: 'out', handleId: 'out' }],
    });
    expect(operatorPorts({ id: 'k', kind: 'sink.jsonl', params: { path: 'a' } }, noEdges)).toEqual({
      input: true,
      outputs: [],
    });
  });

  it('adds the kind’s own side outputs and the ports the code emits to, after "out"', () => {
    expect(names({ id: 'w', kind: 'window', params: {} })).toEqual(['out', 'late']);
    const code = 'function process(r, ctx) { ctx.emit(r, "transfer"); ctx.emit(r, "audit"); ctx.emit(r); }';
    expect(names({ id: 'p', kind: 'process', params: { code } })).toEqual(['out', 'transfer', 'audit']);
  });

  it('keeps a port an edge leaves from even when nothing emits to it any more', () => {
    const op = { id: 'p', kind: 'process', params: { code: 'function process(r, ctx) { ctx.emit(r); }' } };
    expect(names(op, [{ id: 'e1', from: 'p', fromPort: 'old', to: 'q', partition: 'forward' }])).toEqual([
      'out',
      'old',
    ]);
  });

  it('draws what edges need on operators that should not have them, so the edges stay visible', () => {
    const edges = [
      { id: 'e1', from: 'k', to: 's', partition: 'forward' },
      { id: 'e2', from: 'x', to: 's', partition: 'forward' },
    ];
    const sink = operatorPorts({ id: 'k', kind: 'sink.jsonl', params: {} }, edgeUse(edges));
    expect(sink.outputs.map((p) => p.port)).toEqual(['out']);
    expect(operatorPorts({ id: 's', kind: 'source.jsonl', params: {} }, edgeUse(edges)).input).toBe(true);
  });

  it('draws an operator of an unknown kind with an input and "out"', () => {
    expect(operatorPorts({ id: 'u', kind: 'teleport' }, noEdges)).toEqual({
      input: true,
      outputs: [{ port: 'out', handleId: 'out' }],
    });
    expect(operatorPorts({ kind: 42, params: 'not an object' }, noEdges).input).toBe(true);
  });

  it('gives a port name unsafe in a selector a stand-in handle id, and maps it back', () => {
    const code = 'function process(r, ctx) { ctx.emit(r, "a \\"b\\""); }';
    const ports = operatorPorts({ id: 'p', kind: 'process', params: { code } }, noEdges);
    expect(ports.outputs[1]).toEqual({ port: 'a "b"', handleId: '~port1' });
    expect(handleOf(ports, 'a "b"')).toBe('~port1');
    expect(portOf(ports, '~port1')).toBe('a "b"');
    expect(portOf(ports, 'out')).toBe('out');
  });
});
