// The maps of the code against the tree, so that neither goes stale without a failing test: the
// README's Layout names every top-level folder of the repository and every folder of engine/
// (as git tracks them: node_modules/ and dist/ are not), every path it names exists, and every
// document in docs/ is named; ARCHITECTURE.md names every top-level and engine folder too, and
// every file path it writes in backticks, and every file it links to, exists. The checks are
// functions of the text and the tree, so the last tests show them failing on a tree that has a
// folder the maps lack and maps that name what is gone.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '..');

interface Tree {
  /** Tracked files, relative to the root with '/' separators. */
  readonly files: readonly string[];
  /** Whether a path (file or folder, relative to the root) is there. */
  readonly exists: (relative: string) => boolean;
}

const realTree: Tree = {
  files: execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== ''),
  exists: (relative) => existsSync(path.join(repoRoot, relative)),
};

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

/** Folders at the root that hold a tracked file, e.g. "engine", ".ci". */
function topFolders(tree: Tree): string[] {
  return [...new Set(tree.files.filter((f) => f.includes('/')).map((f) => f.split('/')[0]!))].sort();
}

/** Folders directly under engine/ that hold a tracked file, e.g. "runtime". */
function engineFolders(tree: Tree): string[] {
  const nested = tree.files.filter((f) => f.startsWith('engine/') && f.split('/').length > 2);
  return [...new Set(nested.map((f) => f.split('/')[1]!))].sort();
}

/** `a/{b,c}/` as `a/b/` and `a/c/` (any number of brace groups). */
function expandBraces(pattern: string): string[] {
  const match = /^(.*?)\{([^{}]*)\}(.*)$/.exec(pattern);
  if (match === null) return [pattern];
  return match[2]!.split(',').flatMap((choice) => expandBraces(`${match[1]}${choice}${match[3]}`));
}

const withoutSlash = (p: string) => p.replace(/\/+$/, '');

/** The text of a markdown file's `## heading` section, up to the next one. */
function section(text: string, heading: string): string | undefined {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return undefined;
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The first fenced code block of a text. */
function firstCodeBlock(text: string): string | undefined {
  return /^```[^\n]*\n([\s\S]*?)^```/m.exec(text)?.[1];
}

/** What the README's Layout gets wrong about the tree, one line per problem. */
function layoutProblems(readme: string, tree: Tree): string[] {
  const layout = section(readme, 'Layout');
  if (layout === undefined) return ['README.md has no "## Layout" section'];
  const block = firstCodeBlock(layout);
  if (block === undefined) return ["README.md's Layout has no code block of folders"];
  // A line that starts at the left margin starts with a path; indented lines go on describing it.
  const named = block
    .split('\n')
    .filter((line) => /^\S/.test(line))
    .flatMap((line) => expandBraces(line.split(/\s/, 1)[0]!));
  const names = new Set(named.map(withoutSlash));
  const problems: string[] = [];
  // A top-level folder is named by itself or by the folders of it the Layout lists (assets/examples/).
  const tops = new Set([...names].map((name) => name.split('/')[0]!));
  for (const folder of topFolders(tree))
    if (!tops.has(folder)) problems.push(`the top-level folder ${folder}/ is not in README's Layout`);
  for (const folder of engineFolders(tree))
    if (!names.has(`engine/${folder}`)) problems.push(`engine/${folder}/ is not in README's Layout`);
  for (const doc of tree.files.filter((f) => /^docs\/[^/]+\.md$/.test(f)))
    if (!names.has(doc)) problems.push(`${doc} is not in README's Layout`);
  for (const name of named)
    if (!tree.exists(name)) problems.push(`README's Layout names ${name}, which does not exist`);
  return problems;
}

/** Extensions that make a word in backticks a file name, with or without a folder. */
const FILE_NAME = /\.(ts|tsx|mts|cts|js|mjs|cjs|json|md|yml|yaml|xml|properties)$/;

/** A glob (`*`, `**`) as a regular expression over whole paths. */
function globRegExp(glob: string): RegExp {
  const part = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*');
  return new RegExp(
    `^${glob
      .split(/\*\*\/?/)
      .map(part)
      .join('.*')}$`,
  );
}

/**
 * The paths a document writes in backticks (outside code blocks), each with what makes it one:
 * a word with a '/' whose first part is a top-level entry of the tree or that ends in a file
 * name, or a bare file name. Words with spaces, URLs, module specifiers (`node:fs`, `pg`),
 * placeholders (`runs/NAME-HASH/`) and build output (`dist/...`) are not paths of the tree.
 */
function backtickPaths(text: string, tree: Tree): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  const top = new Set(tree.files.map((f) => f.split('/')[0]!));
  const paths: string[] = [];
  for (const [, span] of prose.matchAll(/`([^`]+)`/g)) {
    const word = span!.trim();
    // Placeholders (`chk-<n>.json`), specifiers (`node:fs`, `@scope/name`), absolute paths.
    if (!/^[\w.{},*-][\w.{},*/-]*$/.test(word)) continue;
    if (/^(dist|node_modules)\//.test(word)) continue;
    const isPath = word.includes('/')
      ? top.has(word.split('/')[0]!) || FILE_NAME.test(word)
      : FILE_NAME.test(word);
    if (isPath) paths.push(word);
  }
  return paths;
}

/** Whether a path from a document is in the tree: a file or folder, a bare file name anywhere, or a glob that matches. */
function inTree(word: string, tree: Tree): boolean {
  return expandBraces(word).every((p) => {
    if (p.includes('*')) {
      const pattern = globRegExp(withoutSlash(p));
      return tree.files.some((f) => pattern.test(p.includes('/') ? f : path.posix.basename(f)));
    }
    if (!p.includes('/')) return tree.exists(p) || tree.files.some((f) => path.posix.basename(f) === p);
    return tree.exists(p);
  });
}

/** What ARCHITECTURE.md gets wrong about the tree, one line per problem. */
function architectureProblems(text: string, tree: Tree): string[] {
  const problems: string[] = [];
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const folder of topFolders(tree)) {
    if (!new RegExp(`(^|[^\\w./-])${literal(folder)}/`, 'm').test(text))
      problems.push(`ARCHITECTURE.md does not name the top-level folder ${folder}/`);
  }
  for (const folder of engineFolders(tree)) {
    if (!new RegExp(`engine/${literal(folder)}(?![\\w.-])`).test(text))
      problems.push(`ARCHITECTURE.md does not name engine/${folder}/`);
  }
  for (const word of backtickPaths(text, tree))
    if (!inTree(word, tree)) problems.push(`ARCHITECTURE.md names \`${word}\`, which is not in the tree`);
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const file = target!.split('#')[0]!;
    if (/^[a-z]+:/.test(target!) || file === '') continue;
    if (!tree.exists(file)) problems.push(`ARCHITECTURE.md links to ${file}, which does not exist`);
  }
  return problems;
}

describe("README's Layout", () => {
  it('names every top-level and engine folder and every document, and only paths that exist', () => {
    expect(layoutProblems(read('README.md'), realTree)).toEqual([]);
  });
});

describe('ARCHITECTURE.md', () => {
  const text = read('ARCHITECTURE.md');

  it('names every top-level and engine folder', () => {
    expect(architectureProblems(text, realTree).filter((p) => p.includes('does not name'))).toEqual([]);
  });

  it('writes in backticks, and links to, only paths that exist', () => {
    // Guards the guard: the document does write paths, and the parser finds them.
    expect(backtickPaths(text, realTree).length).toBeGreaterThan(50);
    expect(architectureProblems(text, realTree).filter((p) => !p.includes('does not name'))).toEqual([]);
  });
});

describe('the checks fail where the maps are stale', () => {
  // The real tree with a new engine folder and a new top-level folder, and without
  // engine/runtime/channel.ts (as if it had moved). Only the problems these changes add are
  // compared: what is wrong with the real documents already is the tests' above to report.
  const gone = 'engine/runtime/channel.ts';
  const tree: Tree = {
    files: [...realTree.files.filter((f) => f !== gone), 'engine/probe-folder/x.ts', 'probe-top/y.ts'],
    exists: (p) =>
      withoutSlash(p) !== gone &&
      (realTree.exists(p) || p.startsWith('engine/probe-folder') || p.startsWith('probe-top')),
  };

  it("in README's Layout", () => {
    const text = read('README.md');
    const at = text.indexOf('\n## Layout\n');
    const layout = text
      .slice(at)
      .replace('\nbin/ ', '\nengine/gone/ ')
      .replace('\ndocs/testing.md ', '\ndocs/other.md ');
    const readme = text.slice(0, at) + layout;
    const already = new Set(layoutProblems(text, realTree));
    expect(layoutProblems(readme, tree).filter((p) => !already.has(p))).toEqual([
      "the top-level folder bin/ is not in README's Layout",
      "the top-level folder probe-top/ is not in README's Layout",
      "engine/probe-folder/ is not in README's Layout",
      "docs/testing.md is not in README's Layout",
      "README's Layout names engine/gone/, which does not exist",
      "README's Layout names docs/other.md, which does not exist",
    ]);
  });

  it('in ARCHITECTURE.md', () => {
    const real = read('ARCHITECTURE.md');
    const already = new Set(architectureProblems(real, realTree));
    const text = `${real}\nSee \`engine/runtime/nowhere.ts\`, \`nowhere.ts\`, \`engine/{state,nope}/\`, \`*.nope.test.ts\` and [the guide](docs/guide.md).\n`;
    expect(architectureProblems(text, tree).filter((p) => !already.has(p))).toEqual([
      'ARCHITECTURE.md does not name the top-level folder probe-top/',
      'ARCHITECTURE.md does not name engine/probe-folder/',
      `ARCHITECTURE.md names \`${gone}\`, which is not in the tree`,
      'ARCHITECTURE.md names `engine/runtime/nowhere.ts`, which is not in the tree',
      'ARCHITECTURE.md names `nowhere.ts`, which is not in the tree',
      'ARCHITECTURE.md names `engine/{state,nope}/`, which is not in the tree',
      'ARCHITECTURE.md names `*.nope.test.ts`, which is not in the tree',
      'ARCHITECTURE.md links to docs/guide.md, which does not exist',
    ]);
  });
});
