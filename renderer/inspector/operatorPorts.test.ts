import { describe, expect, it } from 'vitest';
import type { JobDraft } from '../document/jobDraft';
import { operatorPorts } from './operatorPorts';

const draft: JobDraft = {
  format: 'pipewright.job/1',
  name: 'ports',
  operators: [
    { id: 'src', kind: 'source.jsonl', params: { path: 'in.jsonl' } },
    {
      id: 'p',
      kind: 'process',
      params: { code: "function process(r, ctx) { ctx.emit(r); ctx.emit(r, 'transfer'); }" },
    },
    { id: 'w', kind: 'window', params: { type: 'tumbling', sizeMs: 10, aggregate: 'count' } },
    { id: 'dyn', kind: 'map', params: { code: 'function map(r, ctx) { ctx.emit(r, r.port); }' } },
    { id: 'out', kind: 'sink.jsonl', params: { path: 'out.jsonl' } },
  ],
  edges: [
    { id: 'e1', from: 'src', to: 'p', partition: 'hash', key: 'owner' },
    { id: 'e2', from: 'p', fromPort: 'transfer', to: 'p', partition: 'hash', key: 'to', feedback: true },
    { id: 'e3', from: 'p', to: 'out', partition: 'rebalance' },
    { id: 'e4', from: 'p', fromPort: 'typo', to: 'out', partition: 'rebalance' },
  ],
};

describe('operatorPorts', () => {
  it('lists out, the ports the code emits to and the ports edges name, each with its edges', () => {
    const ports = operatorPorts(draft, 'p');
    expect(ports.outputs.map((o) => [o.name, o.edges.map((e) => e.id), o.emitted])).toEqual([
      ['out', ['e3'], true],
      ['transfer', ['e2'], true],
      ['typo', ['e4'], false],
    ]);
    expect(ports.inputs.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(ports.dynamic).toBe(false);
  });

  it('adds the ports a kind defines itself', () => {
    expect(operatorPorts(draft, 'w').outputs.map((o) => o.name)).toEqual(['out', 'late']);
  });

  it('says when the code names a port with an expression', () => {
    expect(operatorPorts(draft, 'dyn').dynamic).toBe(true);
  });

  it('gives a sink no outputs', () => {
    const ports = operatorPorts(draft, 'out');
    expect(ports.hasOutputs).toBe(false);
    expect(ports.outputs).toEqual([]);
    expect(ports.inputs.map((e) => e.id)).toEqual(['e3', 'e4']);
  });
});
