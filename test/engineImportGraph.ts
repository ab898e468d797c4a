// Which engine folder imports which, read from the source (not from a lint rule), and the circles
// in it: the layering test checks the real graph has none, independently of biome.json.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'vite';

/** One import of another engine folder: the file and line that make the edge. */
export interface FolderImport {
  from: string;
  to: string;
  where: string;
}

/** The folders directly under `engineDir`. */
export function engineFolders(engineDir: string): string[] {
  return readdirSync(engineDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Every import (static, type-only, re-export, `import()`) of one engine folder by another, tests left out. */
export function folderImports(repoRoot: string): FolderImport[] {
  const engineDir = path.join(repoRoot, 'engine');
  const imports: FolderImport[] = [];
  for (const from of engineFolders(engineDir)) {
    const files = readdirSync(path.join(engineDir, from), { recursive: true, encoding: 'utf8' }).filter(
      (file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file),
    );
    for (const file of files) {
      const filePath = path.join(engineDir, from, file);
      const text = readFileSync(filePath, 'utf8');
      for (const { specifier, pos } of importSpecifiers(filePath, text)) {
        if (!specifier.startsWith('.')) continue;
        const target = path.relative(engineDir, path.resolve(path.dirname(filePath), specifier));
        const to = target.split(path.sep)[0]!;
        if (target.startsWith('..') || to === from || !target.includes(path.sep)) continue;
        const line = text.slice(0, pos).split('\n').length;
        imports.push({ from, to, where: `${path.relative(repoRoot, filePath)}:${line}` });
      }
    }
  }
  return imports;
}

/** The module specifiers of a file's imports, re-exports and `import()`s of a string literal. */
function importSpecifiers(filePath: string, text: string): { specifier: string; pos: number }[] {
  const { module, errors } = parseSync(filePath, text, { lang: filePath.endsWith('x') ? 'tsx' : 'ts' });
  if (errors.length > 0) throw new Error(`${filePath} does not parse: ${errors[0]!.message}`);
  const found = [
    ...module.staticImports.map(({ moduleRequest }) => moduleRequest),
    ...module.staticExports.flatMap(({ entries }) =>
      entries.flatMap(({ moduleRequest }) => moduleRequest ?? []),
    ),
  ].map(({ value, start }) => ({ specifier: value, pos: start }));
  for (const { moduleRequest } of module.dynamicImports) {
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(text.slice(moduleRequest.start, moduleRequest.end));
    if (literal) found.push({ specifier: literal[2]!, pos: moduleRequest.start });
  }
  return found;
}

/**
 * The groups of folders that import each other in a circle (strongly connected components of more
 * than one folder), each described as one circle through it and the imports that make its edges.
 */
export function folderCycles(imports: FolderImport[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  return stronglyConnected(next)
    .filter((group) => group.length > 1)
    .map((group) => {
      const members = new Set(group);
      const edges = imports.filter(({ from, to }) => members.has(from) && members.has(to));
      const byEdge = new Map<string, string[]>();
      for (const { from, to, where } of edges) {
        const key = `${from} -> ${to}`;
        byEdge.set(key, [...(byEdge.get(key) ?? []), where]);
      }
      const lines = [...byEdge].map(([edge, where]) => `  ${edge}: ${where.join(', ')}`);
      const circle = circleThrough(group[0]!, next, members).join(' -> ');
      return `${group.join(', ')} import each other in a circle (as ${circle}):\n${lines.sort().join('\n')}`;
    });
}

/** Tarjan's algorithm: the strongly connected components of `next`, each sorted by name. */
function stronglyConnected(next: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      groups.push(group.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return groups;
}

/** The shortest circle from `start` back to itself inside `members` (breadth first). */
function circleThrough(start: string, next: Map<string, Set<string>>, members: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of [...(next.get(node) ?? [])].sort()) {
      if (!members.has(to)) continue;
      if (to === start) {
        const between: string[] = [];
        for (let at = node; at !== start; at = cameFrom.get(at)!) between.unshift(at);
        return [start, ...between, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}
