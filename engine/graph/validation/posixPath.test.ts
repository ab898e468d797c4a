import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizePath, resolvePath } from './posixPath.js';

const CASES = [
  'a.jsonl',
  './a.jsonl',
  'a//b/./c/../d/',
  '../x',
  '../../x/../y',
  'a/../../b',
  '/',
  '/../x',
  '/a/./b/../../..',
  '.',
  './',
  'a/..',
  '//a//b',
];

describe('posix paths without Node', () => {
  it('normalise as node:path.posix does (a trailing slash aside)', () => {
    for (const text of CASES) {
      const expected = path.posix.normalize(text).replace(/(.)\/$/, '$1');
      expect(normalizePath(text), text).toBe(expected);
    }
  });

  it('resolve against a folder as node:path.posix.resolve does', () => {
    for (const text of CASES) {
      for (const base of ['/work/jobs', '/work/jobs/', '/', '/a/../b']) {
        expect(resolvePath(base, text), `${base} + ${text}`).toBe(path.posix.resolve(base, text));
      }
    }
  });
});
