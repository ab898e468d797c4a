// Compiles this folder's TypeScript into dist/test/kinds/ (types stripped, one file each), so
// that a child process or a worker thread can load the test kinds: their relative imports then
// land on the engine's build in dist/engine. Node 20 cannot strip types itself, and TypeScript 7
// has no JS API, so vite's transform does it. Tests call it in beforeAll; `dist/engine` must be
// built (npm test builds it first).
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformWithOxc } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');
/** Where the compiled kinds go. */
export const compiledKindsDir = join(repoRoot, 'dist', 'test', 'kinds');
/** The compiled kind modules, as loadKindModule takes them (what a worker thread is told to load). */
export const compiledKindModules: readonly string[] = [
  join(compiledKindsDir, 'sourceCounter', 'kind.js'),
  join(compiledKindsDir, 'sinkCollect', 'kind.js'),
];
/** The child-process runner (runWithKinds.ts), compiled. */
export const compiledRunner = join(compiledKindsDir, 'runWithKinds.js');

async function sources(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sources(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** Compiles every module of test/kinds; returns the output folder. */
export async function compileKinds(): Promise<string> {
  for (const source of await sources(here)) {
    const { code } = await transformWithOxc(await readFile(source, 'utf8'), source, { lang: 'ts' });
    const target = join(compiledKindsDir, relative(here, source)).replace(/\.ts$/, '.js');
    await mkdir(dirname(target), { recursive: true });
    // Whole files only: another test process may be loading the previous one right now.
    const temporary = `${target}.${process.pid}.tmp`;
    await writeFile(temporary, code);
    await rename(temporary, target);
  }
  return compiledKindsDir;
}
