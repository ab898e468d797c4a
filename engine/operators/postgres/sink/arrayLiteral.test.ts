import { describe, expect, it } from 'vitest';
import { arrayLiteral } from './arrayLiteral.js';

describe('arrayLiteral', () => {
  it('leaves numbers and booleans bare, writes NULL for null, and quotes every string', () => {
    expect(arrayLiteral([1, -2.5, 1e21, true, false, null])).toBe('{1,-2.5,1e+21,true,false,NULL}');
    expect(arrayLiteral(['a', '', 'NULL', 'x y', '{1,2}'])).toBe('{"a","","NULL","x y","{1,2}"}');
    expect(arrayLiteral([])).toBe('{}');
  });

  it('writes a column of one kind as a column of mixed kinds is written', () => {
    expect(arrayLiteral([1, 20, -3, 0.5, 1e21, true])).toBe('{1,20,-3,0.5,1e+21,true}');
    expect(arrayLiteral(['a', 'b c'])).toBe('{"a","b c"}');
    expect(arrayLiteral(['a', null, 'b'])).toBe('{"a",NULL,"b"}');
    expect(arrayLiteral([1, null])).toBe('{1,NULL}');
    expect(arrayLiteral(['a', 'say "hi"'])).toBe('{"a","say \\"hi\\""}');
    expect(arrayLiteral([''])).toBe('{""}');
  });

  it('escapes quotes and backslashes inside a string, and nothing else', () => {
    expect(arrayLiteral(['say "hi"', 'C:\\dir\\', '\\"', 'é\n\t'])).toBe(
      '{"say \\"hi\\"","C:\\\\dir\\\\","\\\\\\"","é\n\t"}',
    );
  });
});
