// What `pipewright run` loads before a job can start. Node's module loader pays for every file it
// resolves, reads and compiles, on each thread of a run: the CLI's main thread and its run thread
// (or part workers) loaded ~580 module files one by one for a one-record job, about 0.2 CPU-s of
// the ~0.5 such a job cost. The CLI is bundled (scripts/bundleCli.mjs): each thread loads a few
// files of dist/cli. A loader hook, given to every thread through NODE_OPTIONS, lists the files.
import { readFile, writeFile } from 'node:fs/promises';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeRun,
  makeTempDir,
  readJsonl,
  removeTempDirs,
  repoRoot,
  runCli,
  writeJob,
  writeJsonl,
} from './cliHarness.js';

afterAll(removeTempDirs);

let hooksDir: string;

beforeAll(async () => {
  hooksDir = await makeTempDir('pipewright-cli-start-');
  // Hooks run on a loader thread of their own, so they write where the test can read.
  await writeFile(
    path.join(hooksDir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'export async function load(url, context, next) {',
      "  if (url.startsWith('file:')) appendFileSync(process.env.PIPEWRIGHT_TEST_LOADS, `${url}\\n`);",
      '  return next(url, context);',
      '}',
    ].join('\n'),
  );
  await writeFile(
    path.join(hooksDir, 'preload.mjs'),
    "import { register } from 'node:module';\nregister(new URL('./hooks.mjs', import.meta.url));\n",
  );
});

/** A folder holding `job.json`: a one-line input through a keyed `process` into a JSONL sink. */
async function oneRecordJob(name: string, parallelism: number): Promise<string> {
  const dir = await makeTempDir(`pipewright-cli-start-${name}-`);
  await writeJsonl(path.join(dir, 'in.jsonl'), [{ k: 'a', v: 1 }]);
  await writeJob(path.join(dir, 'job.json'), {
    format: 'pipewright.job/1',
    name,
    settings: { stateBackend: 'memory' },
    operators: [
      { id: 'src', kind: 'source.jsonl', parallelism: 1, params: { path: 'in.jsonl' } },
      {
        id: 'acc',
        kind: 'process',
        parallelism,
        params: {
          code: "function process(r, ctx) { const s = ctx.state.value('n'); s.set((s.get() ?? 0) + 1); ctx.emit({ k: r.k, n: s.get() }); }",
        },
      },
      { id: 'out', kind: 'sink.jsonl', parallelism: 1, params: { path: 'out.jsonl' } },
    ],
    edges: [
      { id: 'e1', from: 'src', to: 'acc', partition: 'hash', key: 'k' },
      { id: 'e2', from: 'acc', to: 'out', partition: 'rebalance' },
    ],
  });
  return dir;
}

/** Runs the one-record job under the hook; the files of this package it loaded, as paths under it. */
async function loadsOfRun(
  name: string,
  parallelism: number,
  threads: number,
): Promise<{ files: string[]; out: unknown[] }> {
  const dir = await oneRecordJob(name, parallelism);
  const log = path.join(dir, 'loads.txt');
  await writeFile(log, '');
  const preload = pathToFileURL(path.join(hooksDir, 'preload.mjs')).href;
  const result = await runCli(['run', 'job.json', '--threads', String(threads)], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: `--import ${preload}`, PIPEWRIGHT_TEST_LOADS: log },
  });
  expect(result.code, describeRun(result)).toBe(0);
  const root = pathToFileURL(repoRoot).href;
  const files = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith(root) && !url.includes('/node_modules/'))
    .map((url) => url.slice(root.length).replace(/^\//, ''));
  return { files, out: await readJsonl(path.join(dir, 'out.jsonl')) };
}

describe('pipewright run, before the job starts', () => {
  it('loads the engine as a few bundled files on its two threads, not one file per module', async () => {
    const { files, out } = await loadsOfRun('one-thread', 1, 1);
    expect(out).toEqual([{ k: 'a', n: 1 }]);
    // The run thread is dist/cli's jobWorker.js, and nothing comes from tsc's dist/engine.
    expect(files).toContain('dist/cli/jobWorker.js');
    expect(files.filter((file) => !file.startsWith('dist/cli/') && file !== 'bin/pipewright.js')).toEqual([]);
    expect(files.length).toBeLessThan(60);
  });

  it('and so do the part workers of a run on two threads', async () => {
    const { files, out } = await loadsOfRun('two-threads', 2, 2);
    expect(out).toEqual([{ k: 'a', n: 1 }]);
    expect(files.filter((file) => file === 'dist/cli/partWorker.js')).toHaveLength(2);
    expect(files.filter((file) => !file.startsWith('dist/cli/') && file !== 'bin/pipewright.js')).toEqual([]);
    expect(files.length).toBeLessThan(90);
  });

  // Node 22.1 and later keep V8's compiled code on disk (module.enableCompileCache); Node 20 has
  // no such cache for ES modules, and there the run goes on without one. Node says, in its native
  // debug output, which files' code it took from the cache.
  const nodeCaches = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  it(
    nodeCaches
      ? "compiles the bundle once: the next run takes both threads' code from the cache"
      : 'runs without a compile cache on a Node that has none for ES modules',
    async () => {
      const dir = await oneRecordJob('compile-cache', 1);
      const { NODE_COMPILE_CACHE: _, ...env } = process.env;
      const run = () =>
        runCli(['run', 'job.json', '--threads', '1'], {
          cwd: dir,
          env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
        });
      const first = await run();
      expect(first.code, describeRun(first)).toBe(0);
      const second = await run();
      expect(second.code, describeRun(second)).toBe(0);
      const accepted = (file: string) =>
        new RegExp(`V8 code cache for ESM \\S*/dist/cli/${file} was accepted`).test(second.stderr);
      if (nodeCaches) {
        expect(accepted('pipewright\\.js'), second.stderr).toBe(true);
        expect(accepted('jobWorker\\.js'), second.stderr).toBe(true);
      } else {
        expect(second.stderr).not.toContain('[compile cache]');
      }
    },
  );
});
