import { describe, expect, it } from 'vitest';
import { envNames, holdsLiteralPassword, suggestedReference } from './envReferences';

describe('envNames', () => {
  it('lists the variables a value names, each once', () => {
    expect(envNames('${env:PG_URL}')).toEqual(['PG_URL']);
    expect(envNames('postgres://${env:PG_USER}:${env:PG_PASSWORD}@db/${env:PG_USER}')).toEqual([
      'PG_USER',
      'PG_PASSWORD',
    ]);
    expect(envNames('redis://127.0.0.1:6379')).toEqual([]);
    expect(envNames('${env:1BAD}')).toEqual([]);
    expect(envNames(42)).toEqual([]);
  });
});

describe('holdsLiteralPassword', () => {
  it('finds a password written into a URL', () => {
    expect(holdsLiteralPassword('postgres://pipewright:secret@127.0.0.1:5432/db')).toBe(true);
    expect(holdsLiteralPassword('redis://:secret@localhost:6379')).toBe(true);
    expect(holdsLiteralPassword(' redis://user:p:w@host ')).toBe(true);
    expect(holdsLiteralPassword('postgres://u:${env:PG_PASSWORD}x@db')).toBe(true);
  });

  it('lets environment references, users without passwords and plain addresses be', () => {
    expect(holdsLiteralPassword('${env:PG_URL}')).toBe(false);
    expect(holdsLiteralPassword('postgres://u:${env:PG_PASSWORD}@db/x')).toBe(false);
    expect(holdsLiteralPassword('postgres://reader@db/x')).toBe(false);
    expect(holdsLiteralPassword('redis://127.0.0.1:6379')).toBe(false);
    expect(holdsLiteralPassword('localhost:9092,other:9092')).toBe(false);
    expect(holdsLiteralPassword('http://host/path?x=a:b@c')).toBe(false);
    expect(holdsLiteralPassword(undefined)).toBe(false);
  });
});

describe('suggestedReference', () => {
  it('offers a default that is one environment reference, nothing else', () => {
    expect(suggestedReference('${env:PG_URL}')).toBe('${env:PG_URL}');
    expect(suggestedReference('redis://127.0.0.1')).toBeUndefined();
    expect(suggestedReference(undefined)).toBeUndefined();
  });
});
