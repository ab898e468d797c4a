import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATOR_KINDS, registerKind } from '../../engine/graph/index.js';
import { defaultParams, idBase } from '../document/operatorTemplates';
import { paletteGroups } from './paletteGroups';

const kinds = (query: string) => paletteGroups(query).map((g) => [g.title, g.kinds.map((k) => k.kind)]);

describe('palette groups', () => {
  it('lists every kind once, grouped sources, transforms, keyed, sinks', () => {
    const groups = paletteGroups('');
    expect(groups.map((g) => g.title)).toEqual(['Sources', 'Transforms', 'Keyed', 'Sinks']);
    expect(groups.flatMap((g) => g.kinds.map((k) => k.kind)).sort()).toEqual([...OPERATOR_KINDS].sort());
  });

  it('lists Transaction once, under Keyed, as a kind that can be dropped', () => {
    const found = paletteGroups('').flatMap((g) => g.kinds.map((k) => [g.title, k] as const));
    const transactions = found.filter(([, k]) => k.kind === 'transaction');
    expect(transactions.map(([title, k]) => [title, k.designer.label, k.available])).toEqual([
      ['Keyed', 'Transaction', true],
    ]);
  });

  it('matches every word of the query against title, kind and group, ignoring case', () => {
    expect(kinds('json')).toEqual([
      ['Sources', ['source.jsonl']],
      ['Sinks', ['sink.jsonl']],
    ]);
    expect(kinds('JSON sink')).toEqual([['Sinks', ['sink.jsonl']]]);
    expect(kinds('keyed')).toEqual([['Keyed', ['process', 'window', 'transaction']]]);
    expect(kinds('flatmap')).toEqual([['Transforms', ['flatMap']]]);
    expect(kinds('  ')).toHaveLength(4);
    expect(kinds('nothing like it')).toEqual([]);
  });

  it("lists a kind registered at run time in its descriptor's group, with its label", () => {
    const remove = registerKind({
      kind: 'sink.testQueue',
      role: 'sink',
      params: z.strictObject({ queue: z.string() }),
      ports: { inputs: true, outputs: [] },
      keyedInput: 'never',
      available: true,
      designer: {
        label: 'Test queue',
        group: 'sink',
        description: 'Writes to a queue.',
        idBase: 'queue',
        defaultParams: { queue: 'q' },
        icon: 'M2 2h12v12H2z',
      },
    });
    try {
      expect(kinds('queue')).toEqual([['Sinks', ['sink.testQueue']]]);
      expect(idBase('sink.testQueue')).toBe('queue');
      const params = defaultParams('sink.testQueue');
      expect(params).toEqual({ queue: 'q' });
      params.queue = 'edited';
      expect(defaultParams('sink.testQueue')).toEqual({ queue: 'q' });
    } finally {
      remove();
    }
    expect(kinds('queue')).toEqual([]);
  });
});
