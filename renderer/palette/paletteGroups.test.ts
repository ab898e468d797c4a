import { describe, expect, it } from 'vitest';
import { OPERATOR_KINDS } from '../../engine/graph/index.js';
import { paletteGroups } from './paletteGroups';

const kinds = (query: string) => paletteGroups(query).map((g) => [g.title, g.kinds.map((k) => k.kind)]);

describe('palette groups', () => {
  it('lists every kind once, grouped sources, transforms, keyed, sinks', () => {
    const groups = paletteGroups('');
    expect(groups.map((g) => g.title)).toEqual(['Sources', 'Transforms', 'Keyed', 'Sinks']);
    expect(groups.flatMap((g) => g.kinds.map((k) => k.kind)).sort()).toEqual([...OPERATOR_KINDS].sort());
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
});
