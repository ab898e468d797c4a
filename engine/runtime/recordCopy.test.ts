// The copy a record gets when it leaves user code: JSON's own conversions where they keep what
// was meant, an error naming the field for what JSON would lose or cannot hold.
import { describe, expect, it } from 'vitest';
import { formatPath, MAX_DEPTH, MAX_RECORD_TEXT, recordCopy } from './recordCopy.js';

const at = () => 'ctx.emit at line 3 of its code';
const copy = (value: unknown) => recordCopy(value, at);

/** The error message for a value, without the `where` part. */
function refusal(value: unknown): string {
  try {
    copy(value);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    const message = (error as Error).message;
    expect(message.startsWith(`${at()}: `)).toBe(true);
    return message.slice(at().length + 2);
  }
  throw new Error('expected the record to be refused');
}

describe('recordCopy', () => {
  it('copies a record, so changing the original afterwards changes nothing', () => {
    const record = { id: 'a', n: 1, items: [{ sku: 'x', qty: 2 }], address: { city: 'Lyon' } };
    const copied = copy(record) as typeof record;
    expect(copied).toEqual(record);
    record.n = 2;
    record.items[0]!.qty = 3;
    record.items.push({ sku: 'y', qty: 1 });
    record.address.city = 'Nice';
    expect(copied).toEqual({ id: 'a', n: 1, items: [{ sku: 'x', qty: 2 }], address: { city: 'Lyon' } });
    expect(copied).not.toBe(record);
  });

  it('keeps JSON values as they are, scalars included', () => {
    for (const value of [
      'text',
      0,
      1.5,
      -3,
      true,
      false,
      null,
      [],
      {},
      [1, 'a', null, [2]],
      { a: { b: [] } },
    ]) {
      expect(copy(value)).toEqual(value);
    }
  });

  it('makes the conversions JSON makes where nothing is lost', () => {
    // A property holding undefined is left out; an undefined element or a hole becomes null.
    expect(copy({ a: 1, b: undefined })).toStrictEqual({ a: 1 });
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(copy([1, undefined, , 4])).toStrictEqual([1, null, null, 4]);
    // toJSON: a Date becomes its ISO text.
    expect(copy({ at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) })).toEqual({ at: '2024-01-02T03:04:05.000Z' });
    // Boxed primitives are unwrapped.
    expect(copy([Object(1), Object('s'), Object(false)])).toEqual([1, 's', false]);
    // A class instance: its own enumerable fields, in a plain object.
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
      norm() {
        return Math.hypot(this.x, this.y);
      }
    }
    const point = copy(new Point(3, 4));
    expect(point).toEqual({ x: 3, y: 4 });
    expect(Object.getPrototypeOf(point)).toBe(Object.prototype);
    // Symbol-keyed and non-enumerable fields are not part of it.
    const hidden = { a: 1, [Symbol('s')]: new Map() };
    Object.defineProperty(hidden, 'secret', { value: 2, enumerable: false });
    const copiedHidden = copy(hidden) as object;
    expect(Reflect.ownKeys(copiedHidden)).toEqual(['a']);
    // A getter is read once, as a field.
    let reads = 0;
    const computed = copy({
      get total() {
        reads++;
        return 5;
      },
    });
    expect(Object.getOwnPropertyDescriptor(computed, 'total')).toMatchObject({ value: 5, writable: true });
    expect(reads).toBe(1);
    // A shared (not cyclic) object is copied at each place, as JSON writes it twice.
    const shared = { v: 1 };
    expect(copy({ a: shared, b: shared })).toEqual({ a: { v: 1 }, b: { v: 1 } });
  });

  it('keeps a "__proto__" field as a field', () => {
    const record = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const copied = copy(record) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(copied)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('refuses what JSON cannot hold, naming the field and what it is', () => {
    expect(refusal({ a: 1n })).toBe(
      'record.a is a BigInt (1n), which JSON cannot hold (convert it with Number() or String())',
    );
    expect(refusal({ items: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 7n }] })).toMatch(
      /^record\.items\[3\]\.id is a BigInt \(7n\)/,
    );
    expect(refusal({ s: Symbol('x') })).toMatch(/^record\.s is a Symbol \(Symbol\(x\)\)/);
    expect(refusal({ f: function named() {} })).toMatch(/^record\.f is a function \(named\)/);
    expect(refusal({ 'odd key': [NaN] })).toMatch(/^record\["odd key"\]\[0\] is NaN, which JSON cannot hold/);
    expect(refusal({ n: Number.POSITIVE_INFINITY })).toMatch(/^record\.n is Infinity/);
    expect(refusal({ n: Number.NEGATIVE_INFINITY })).toMatch(/^record\.n is -Infinity/);
    expect(refusal({ m: new Map([[1, 2]]) })).toMatch(/^record\.m is a Map, .*Object\.fromEntries/);
    expect(refusal({ s: new Set([1]) })).toMatch(/^record\.s is a Set/);
    expect(refusal({ w: new WeakMap() })).toMatch(/^record\.w is a WeakMap/);
    expect(refusal({ p: Promise.resolve(1) })).toMatch(/^record\.p is a Promise, .*await/);
    expect(refusal({ e: new RangeError('x') })).toMatch(/^record\.e is an Error object/);
    expect(refusal({ r: /a/ })).toMatch(/^record\.r is a RegExp/);
    expect(refusal({ b: new Uint8Array(2) })).toMatch(/^record\.b is a typed array/);
    expect(refusal(1n)).toMatch(/^record is a BigInt/);
    expect(refusal(undefined)).toBe('record is undefined, which is not a record');
  });

  it('refuses a cycle, naming where it closes', () => {
    const record: Record<string, unknown> = { a: { b: {} } };
    (record.a as { b: Record<string, unknown> }).b.back = record.a;
    expect(refusal(record)).toBe('record.a.b.back refers back to record.a, a cycle JSON cannot hold');
    const self: unknown[] = [];
    self.push(self);
    expect(refusal(self)).toBe('record[0] refers back to record, a cycle JSON cannot hold');
  });

  it('refuses a getter, toJSON or proxy that throws, saying what it threw', () => {
    const getter = {
      ok: 1,
      get bad() {
        throw new Error('no reading this');
      },
    };
    expect(refusal({ x: [getter] })).toBe('record.x[0].bad is unreadable (reading it threw no reading this)');
    const date = new Date(0);
    Object.defineProperty(date, 'toJSON', {
      value: () => {
        throw new TypeError('bad date');
      },
    });
    expect(refusal({ d: date })).toBe('record.d is unreadable (its toJSON() threw TypeError: bad date)');
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(refusal({ p: proxy })).toBe('record.p is unreadable (reading it threw trap)');
  });

  it('refuses nesting deeper than MAX_DEPTH, and copies the next record as usual', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    expect(refusal(deep)).toMatch(
      new RegExp(
        `^record is nested deeper than ${MAX_DEPTH} levels, more than a record may be \\(at record\\[0\\]`,
      ),
    );
    // The walk left nothing behind: the same object is not taken for a cycle next time.
    const record = { a: 1 };
    expect(copy([record, record])).toEqual([{ a: 1 }, { a: 1 }]);
  });

  it('a record nested 5,000 deep: the reason first, in a short line, the path shortened', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const said = refusal(deep);
    expect(said).toMatch(
      new RegExp(
        `^record is nested deeper than ${MAX_DEPTH} levels, more than a record may be \\(at record(\\.a){8} … (\\.a){4}, ${MAX_DEPTH} levels down\\)$`,
      ),
    );
    expect(said.length).toBeLessThan(200);
  });

  it('names a field by a shortened path when its path is long, the reason first', () => {
    let deep: unknown = { big: 7n };
    for (let i = 0; i < 200; i++) deep = { [`field${i}`]: deep };
    const said = refusal(deep);
    expect(said).toMatch(
      /^record holds a BigInt \(7n\), which JSON cannot hold .* \(at record\.field199\.field198.* … .*\.field0\.big, 201 levels down\)$/,
    );
    expect(said.length).toBeLessThan(400);
  });

  it('refuses a record whose text is more than a record may hold, naming the field that passed it', () => {
    // A map that makes a 512 MB string was blamed on the sink that could not write it.
    expect(refusal({ id: 1, s: 'x'.repeat(MAX_RECORD_TEXT + 1) })).toBe(
      `record.s is a string of ${MAX_RECORD_TEXT + 1} characters: a record may hold ${MAX_RECORD_TEXT} characters of text in all (its JSON must fit in one string)`,
    );
    const half = 'y'.repeat(MAX_RECORD_TEXT / 2);
    expect(refusal({ a: half, b: [half, 'z'] })).toBe(
      `record.b[1] is a string of 1 characters: a record may hold ${MAX_RECORD_TEXT} characters of text in all (its JSON must fit in one string)`,
    );
    // Each record has the whole allowance.
    expect(copy({ a: half })).toEqual({ a: half });
    expect(copy({ a: half })).toEqual({ a: half });
  });

  it('calls `where` only when it refuses a record', () => {
    let calls = 0;
    recordCopy({ a: 1 }, () => `${calls++}`);
    expect(calls).toBe(0);
  });

  it('formats field paths as JavaScript would write them', () => {
    expect(formatPath('record', ['items', 3, 'id'])).toBe('record.items[3].id');
    expect(formatPath('record', ['a b', '$ok', '1x'])).toBe('record["a b"].$ok["1x"]');
  });
});
