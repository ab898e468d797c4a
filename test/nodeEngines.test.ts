// The Node.js versions package.json and the README give are true of what npm installs: every
// package in the lockfile accepts the lowest version `engines` allows, except the desktop shell's
// Electron packages, which the README names with the version they need (issue 11, item 14).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './cliHarness.js';

/** Electron 45, and its installer and packaging helpers: they declare Node 22.12. */
const DESKTOP_ONLY = [
  'electron',
  '@electron/get',
  '@electron-internal/extract-zip',
  '@electron/rebuild',
  'node-abi',
];
const DESKTOP_NODE = '22.12.0';
/**
 * Helpers of the Kafka client (@platformatic/kafka 1.35, which itself declares Node 20.19.4) that
 * declare Node 22.19 yet run on Node 20: the Kafka connector tests run them there. The README
 * names them.
 */
const DECLARED_NEWER = ['@platformatic/dynamic-buffer', '@platformatic/wasm-utils'];

type Version = readonly [number, number, number];

/** `20.19.0` as numbers; parts left out or written `*` or `x` (pg's split2: `>= 10.x`) are undefined. */
function parts(text: string): (number | undefined)[] {
  const match = /^v?(\d+|[*xX])(?:\.(\d+|[*xX]))?(?:\.(\d+|[*xX]))?$/.exec(text);
  if (match === null) throw new Error(`not a version: ${text}`);
  return [match[1], match[2], match[3]].map((p) =>
    p === undefined || !/^\d+$/.test(p) ? undefined : Number(p),
  );
}

function version(text: string): Version {
  const [major = 0, minor = 0, patch = 0] = parts(text);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of an npm range: `*`, `>=X`, `>X`, `<X`, `<=X`, `^X`, or a (partial) version `20`, `6.*`. */
function meets(v: Version, comparator: string): boolean {
  if (comparator === '*') return true;
  const op = /^(>=|<=|>|<|\^)?(.+)$/.exec(comparator)!;
  const bound = version(op[2]!);
  const order = compare(v, bound);
  switch (op[1]) {
    case '>=':
      return order >= 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '^':
      return order >= 0 && v[0] === bound[0];
    default:
      return parts(op[2]!).every((p, i) => p === undefined || p === v[i]);
  }
}

/** Whether `v` is in an npm range: alternatives (`||`) of comparators that must all hold. */
function satisfies(v: Version, range: string): boolean {
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/([<>]=?)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => meets(v, comparator)),
  );
}

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/**
 * Package name and engines.node range of each package npm installed here that has one. Optional
 * packages for other platforms (the WebAssembly build of rolldown's binding) are not installed,
 * and npm does not weigh their engines.
 */
const ranges = Object.entries(lock.packages).flatMap(([where, entry]) => {
  const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
  if (where === '' || node === undefined || !existsSync(path.join(repoRoot, where, 'package.json')))
    return [];
  return [{ name: where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length), node }];
});

describe('engines', () => {
  const lowest = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(packageJson.engines.node);

  it('is a lower bound the README states', () => {
    expect(lowest, packageJson.engines.node).not.toBeNull();
    const [major, minor] = version(lowest![1]!);
    const said = `Node.js ${major}.${minor} or later`;
    expect(readme.includes(said), `the README says ${said}`).toBe(true);
  });

  it('is accepted by every package npm installs but the desktop shell’s', () => {
    const low = version(lowest![1]!);
    const refusing = ranges.filter((r) => !satisfies(low, r.node)).map((r) => r.name);
    expect([...new Set(refusing)].sort()).toEqual([...DESKTOP_ONLY, ...DECLARED_NEWER].sort());
  });

  it('the desktop shell’s packages accept the version the README gives for the desktop app', () => {
    const said = `Node.js ${DESKTOP_NODE.split('.').slice(0, 2).join('.')}`;
    expect(readme.includes(said), `the README says ${said}`).toBe(true);
    for (const name of DESKTOP_ONLY) expect(readme.includes(name), `the README names ${name}`).toBe(true);
    const refusing = ranges.filter(
      (r) => !satisfies(version(DESKTOP_NODE), r.node) && !DECLARED_NEWER.includes(r.name),
    );
    expect(refusing).toEqual([]);
  });

  it('the README says the Node versions the tests run on, 24 as test:soak installs it', () => {
    const soak = readFileSync(path.join(repoRoot, 'scripts', 'testSoak.mjs'), 'utf8');
    const tested = /const NODE24_VERSION = '(\d+)'/.exec(soak)?.[1];
    expect(tested, 'scripts/testSoak.mjs names the Node it installs').toBeDefined();
    const [major] = version(lowest![1]!);
    // Words may wrap anywhere in the README's paragraphs.
    const words = readme.replace(/\s+/g, ' ');
    expect(words).toContain(`The tests run on Node ${major} (\`npm test\`)`);
    expect(words).toContain(`on Node ${tested} LTS`);
  });

  it('the README names the packages that declare a newer Node than they need', () => {
    for (const name of DECLARED_NEWER) expect(readme.includes(name), `the README names ${name}`).toBe(true);
  });
});
