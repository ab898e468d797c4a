import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heapCodec } from './heapCodec.js';
import { jsonTextCodec } from './stateCodecs.js';

const samples: unknown[] = [
  0,
  -0,
  1.5,
  1e21,
  -1e-7,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  '',
  'plain',
  'quote " and \\ backslash',
  'tab\tnewline\ncontrol\u0001\u001f',
  'emoji 😀',
  'lone \ud800 and \udfff',
  'ü€',
  [],
  [1, 'a', null],
  [undefined, () => 1, Symbol('s')],
  {},
  { a: 1, b: undefined, c: () => 1, d: [{}] },
  { '10': 1, '2': 2, b: 3, a: 4 },
  { date: new Date(0) },
  new Date(86_400_000),
  { n: new Number(3), s: new String('x') },
  { nested: { deeper: { deepest: ['x', { y: 'z' }] } } },
  new Map([[1, 2]]),
  { toJSON: () => ({ replaced: true }) },
  // An own field named __proto__ (JSON.parse makes one): a field, not the copy's prototype.
  JSON.parse('{"__proto__":{"x":1},"a":2}'),
];

describe('heapCodec', () => {
  it.each(samples.map((value) => [JSON.stringify(value) ?? String(value), value]))(
    'copies %s as a JSON round trip would, and measures its JSON text',
    (_label, value) => {
      const json = JSON.stringify(value);
      const stored = heapCodec.encode('test', value);
      expect(heapCodec.length(stored)).toBe(json!.length);
      expect(heapCodec.decode(stored)).toEqual(JSON.parse(json!));
      expect(heapCodec.toJson(stored)).toBe(json);
      expect(heapCodec.length(heapCodec.fromJson(json!))).toBe(json!.length);
      expect(jsonTextCodec.length(jsonTextCodec.encode('test', value))).toBe(json!.length);
    },
  );

  it('makes the same copy through its scratch (encodeTransient, then keep) as encode makes', () => {
    const same = (value: unknown) => {
      const json = JSON.stringify(value);
      const kept = heapCodec.keep!(heapCodec.encodeTransient!('test', value));
      expect(heapCodec.toJson(kept)).toBe(json);
      expect(heapCodec.length(kept)).toBe(json!.length);
      expect(heapCodec.decode(kept)).toEqual(heapCodec.decode(heapCodec.encode('test', value)));
    };
    for (const value of samples) same(value);
    const field = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(undefined, Number.NaN, -0, Number.NEGATIVE_INFINITY, () => 1),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), field, { maxKeys: 6 }), (value) => same(value)),
      { numRuns: 2000 },
    );
  });

  it('stores a finite number or a boolean as itself, with no holder for a read to reach through', () => {
    for (const value of [7, -3.25, 1e21, true, false]) {
      expect(heapCodec.encode('v', value)).toBe(value);
      expect(heapCodec.fromJson(JSON.stringify(value))).toBe(value);
    }
    expect(Object.is(heapCodec.encode('v', -0), 0)).toBe(true);
    // What JSON turns into null, and strings (whose JSON length costs a scan), keep their holder.
    expect(typeof heapCodec.encode('v', Number.NaN)).toBe('object');
    expect(typeof heapCodec.encode('v', 'text')).toBe('object');
  });

  it('keeps value semantics: neither the caller nor a reader can change what is stored', () => {
    const value = { n: 1, list: [1, 2] };
    const stored = heapCodec.encode('v', value);
    value.n = 2;
    value.list.push(3);
    const read = heapCodec.decode(stored) as typeof value;
    expect(read).toEqual({ n: 1, list: [1, 2] });
    read.list.push(9);
    expect(heapCodec.decode(stored)).toEqual({ n: 1, list: [1, 2] });
  });

  it('refuses what is not JSON, as the text codec does', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [10n, { big: 1n }, cyclic, undefined, () => 1, Symbol('x')]) {
      expect(() => heapCodec.encode('value state "v"', bad)).toThrow(/value state "v" must be a JSON value/);
      expect(() => jsonTextCodec.encode('value state "v"', bad)).toThrow(
        /value state "v" must be a JSON value/,
      );
    }
  });
});

describe('jsonTextCodec', () => {
  const numbers = [0, -0, 7, -7, 1.5, -1e-7, 1e21, -1e21, 2 ** 53 + 2, 5e-324, Number.MAX_VALUE, 0.1 + 0.2];

  it('writes and reads every value as JSON.stringify and JSON.parse do, numbers included', () => {
    for (const value of [...samples, ...numbers]) {
      const json = JSON.stringify(value);
      if (json === undefined) continue;
      const stored = jsonTextCodec.encode('test', value);
      expect(stored).toBe(json);
      expect(jsonTextCodec.decode(stored)).toEqual(JSON.parse(json));
    }
  });

  it('writes a string as JSON.stringify does, whatever it holds and however long', () => {
    const long = 'x'.repeat(40);
    const strings = [
      '',
      long,
      'x'.repeat(31),
      'x'.repeat(32),
      `${long}"`,
      `${long}\\`,
      `${long}\u0000`,
      `${long}\u001f`,
      `${long}\u007f`,
      `${long}\u2028\u2029`,
      `${long}\ud800`,
      `\udfff${long}`,
      `${long}😀`,
      `${long}é ☕`,
      `${long}\n\t\r\b\f`,
    ];
    for (const text of strings) expect(jsonTextCodec.encode('test', text)).toBe(JSON.stringify(text));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
        expect(jsonTextCodec.encode('test', a)).toBe(JSON.stringify(a));
        expect(jsonTextCodec.encode('test', a + long + b)).toBe(JSON.stringify(a + long + b));
        expect(jsonTextCodec.decode(jsonTextCodec.encode('test', long + a))).toBe(long + a);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back each number bit for bit, -0 as JSON has it', () => {
    for (const value of numbers) {
      const back = jsonTextCodec.decode(jsonTextCodec.encode('test', value)) as number;
      expect(Object.is(back, JSON.parse(JSON.stringify(value)))).toBe(true);
    }
    for (const text of ['-0', '-0.5', '1E+3', '1e-3', '123456789012345678901234567890']) {
      expect(Object.is(jsonTextCodec.decode(text), JSON.parse(text))).toBe(true);
    }
  });
});
