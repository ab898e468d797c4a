import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverAddress } from './serverAddress.js';

describe('serverAddress', () => {
  it.each([
    ['postgres://app:pw@db.example:6543/orders?sslmode=require', 5432, 'db.example:6543'],
    ['postgresql://db/orders', 5432, 'db:5432'],
    ['redis://127.0.0.1:6379', 6379, '127.0.0.1:6379'],
    ['redis://[::1]:7000/0', 6379, '[::1]:7000'],
    ['localhost:9092,localhost:9093', 9092, 'localhost:9092,localhost:9093'],
    ['PLAINTEXT://k1:9092, SSL://k2', 9092, 'k1:9092,k2:9092'],
    ['postgres://u:p@h1:5432,h2:5433/db', 5432, 'h1:5432,h2:5433'],
    ['host=db port=6000 dbname=x user=u password=secret', 5432, 'db:6000'],
    ["host='a,b' port=1,2 password=x", 5432, 'a:1,b:2'],
    ['probe:SECRET@127.0.0.1', 5432, '127.0.0.1:5432'],
    ['redis://:pa/SECRET@cache:7000', 6379, 'cache:7000'],
    ['db', undefined, 'db'],
  ])('%s -> %s', (text, port, expected) => {
    expect(serverAddress(text, port)).toBe(expected);
  });

  it.each([
    ['${env:PG_URL}'],
    [':SECRET'],
    ['host:SECRET'],
    ['postgres://127.0.0.1:1/db?user=me@corp&password=SECRET'],
    ['redis://u:SECRET@'],
    [''],
  ])('%s names no server it can show', (text) => {
    expect(serverAddress(text, 1)).toBeUndefined();
  });

  it('never shows a password, however the URL around it is written', () => {
    const password = fc
      .string({ unit: fc.constantFrom(...'abcXYZ019/:?#@%&=,. '.split('')), minLength: 1, maxLength: 12 })
      .map((p) => `Pw${p}`);
    const template = fc.constantFrom(
      (p: string) => `postgres://user:${p}@db.example:5432/orders`,
      (p: string) => `user:${p}@db.example`,
      (p: string) => `redis://:${p}@cache:6379/0`,
      (p: string) => `probe:${p}@127.0.0.1`,
      (p: string) => `db.example:5432?password=${p}`,
      (p: string) => `host=db.example password=${p}`,
    );
    fc.assert(
      fc.property(password, template, (p, make) => {
        const shown = serverAddress(make(p), 5432);
        return shown === undefined || !shown.includes(p);
      }),
      { numRuns: 2000, seed: 25 },
    );
  });
});
