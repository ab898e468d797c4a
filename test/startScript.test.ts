// `npm start` where Electron cannot open a window (issue 25, item 27): it says what it found,
// not a guess about the network it never tried, and starts the browser form, pointing at
// `npm run web`, which starts that directly.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findElectron } from '../scripts/electronBinary.mjs';
import { ChildWatch } from './childWork.js';
import { makeTempDir, removeTempDirs, repoRoot } from './cliHarness.js';

afterAll(removeTempDirs);

/** Runs `npm start`'s script until it prints the designer's URL, then stops it; its stdout. */
function startUntilUrl(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs')], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const watch = new ChildWatch(child, { cpuMs: 20_000 });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (/http:\/\/127\.0\.0\.1:\d+\//.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', () => {
      watch.stop();
      if (/http:\/\//.test(stdout)) resolve(stdout);
      else
        reject(new Error(`no URL (${watch.exceeded ?? 'exited'})\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
  });
}

describe('npm start without an Electron binary', () => {
  it('says no binary is installed, where it looked, and starts the browser form as `npm run web` does', async () => {
    const empty = await makeTempDir('pipewright-no-electron-');
    const env = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty };
    const stdout = await startUntilUrl(env);
    const [first] = stdout.split('\n');
    expect(first).toBe(
      `No Electron binary installed: ${path.join(empty, 'electron')} is not there — starting the browser form instead (\`npm run web\` starts it directly).`,
    );
    expect(stdout).not.toMatch(/cannot reach|download/);
  });

  it('says when the electron package never downloaded its binary, and how to fetch it', async () => {
    const dir = await makeTempDir('pipewright-electron-package-');
    const packageDir = path.join(dir, 'node_modules', 'electron');
    await mkdir(packageDir, { recursive: true });
    await writeFile(path.join(packageDir, 'package.json'), '{"name":"electron"}\n');
    const found = findElectron(packageDir, {});
    expect(found.binary).toBeUndefined();
    expect(found.missing).toBe(
      `${packageDir} holds no binary (its install step did not download it; \`node ${path.join(packageDir, 'install.js')}\` does)`,
    );
  });
});
