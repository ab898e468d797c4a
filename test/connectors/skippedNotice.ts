// vitest's globalSetup: when a connector test's server does not answer (and CI's
// PIPEWRIGHT_REQUIRE_SERVICES=1 is not set), say once, in one line, which connector test files
// skip and how to start the servers, rather than leaving a quiet "skipped" in the summary.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICES_REQUIRED, type ServerName, serverAddress, serverAnswers } from './servers.js';

const FOLDER = 'test/connectors';
const NAMES: ServerName[] = ['postgres', 'redis', 'kafka', 'flink'];

/** The servers a connector test file asks for through describeWithServer or describeWithServers. */
export function serversOfFile(text: string): Set<ServerName> {
  const found = new Set<ServerName>();
  for (const match of text.matchAll(/describeWithServer\(\s*['"](kafka|postgres|redis|flink)['"]/g)) {
    found.add(match[1] as ServerName);
  }
  for (const list of text.matchAll(/describeWithServers\(\s*\[([^\]]*)\]/g)) {
    for (const match of list[1]!.matchAll(/['"](kafka|postgres|redis|flink)['"]/g))
      found.add(match[1] as ServerName);
  }
  return found;
}

/**
 * The line for `down` servers: the files (of `files`, path → text) that need one of them and
 * match the command line's file filters (none: all). Undefined when no file skips.
 */
export function skippedNotice(
  down: ServerName[],
  files: Map<string, string>,
  filters: string[],
): string | undefined {
  const skipped = [...files]
    .filter(([, text]) => [...serversOfFile(text)].some((name) => down.includes(name)))
    .map(([path]) => path)
    .filter((path) => filters.length === 0 || filters.some((filter) => path.includes(filter)))
    .sort();
  if (skipped.length === 0) return undefined;
  const missing = down.map((name) => `${name} at ${serverAddress(name).host}:${serverAddress(name).port}`);
  return `Skipped connector tests, no ${missing.join(', ')}: ${skipped.join(', ')}. Start the servers with \`npm run services\`.`;
}

/** Options of `vitest` whose value is the next argument (not a file filter). */
const TAKES_VALUE = new Set([
  '-t',
  '--testNamePattern',
  '-c',
  '--config',
  '-r',
  '--root',
  '--dir',
  '--project',
]);
const MORE_TAKING_VALUE = ['--reporter', '--outputFile', '--shard', '--pool', '--exclude', '--maxWorkers'];

/** `vitest run a b` → ['a', 'b']: the file filters, which vitest matches as substrings of paths. */
export function commandLineFilters(args: string[]): string[] {
  const filters: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (TAKES_VALUE.has(arg) || MORE_TAKING_VALUE.includes(arg)) index++;
    else if (!arg.startsWith('-') && arg !== 'run') filters.push(arg);
  }
  return filters;
}

/** The test files of a tier among `names`: the soak tier runs the *.soak.test.ts, `npm test` the others. */
export function filesOfTier(names: readonly string[], soak: boolean): string[] {
  return names.filter((name) => name.endsWith('.test.ts') && name.endsWith('.soak.test.ts') === soak);
}

/** `project`: vitest's, whose env says the tier (vitest.soak.config.ts sets PIPEWRIGHT_TEST_TIER). */
export default async function setup(project?: { config?: { env?: Record<string, unknown> } }): Promise<void> {
  if (SERVICES_REQUIRED) return;
  const answers = await Promise.all(NAMES.map(serverAnswers));
  const down = NAMES.filter((_, index) => !answers[index]);
  if (down.length === 0) return;
  const soak = project?.config?.env?.PIPEWRIGHT_TEST_TIER === 'soak';
  const files = new Map(
    filesOfTier(readdirSync(FOLDER), soak).map((name) => [
      join(FOLDER, name),
      readFileSync(join(FOLDER, name), 'utf8'),
    ]),
  );
  const line = skippedNotice(down, files, commandLineFilters(process.argv.slice(2)));
  if (line !== undefined) process.stderr.write(`${line}\n`);
}
