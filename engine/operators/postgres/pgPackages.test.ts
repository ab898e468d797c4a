// Loading the PostgreSQL connectors does not load Node's fetch implementation. On Node 20, which
// has no `navigator`, pg asked whether it ran on Cloudflare Workers by constructing a `Response`
// as it loaded, and Node's first `Response` loads undici: 30–45 ms of a run thread's start for
// nothing. Each connector is loaded in a fresh Node of its own (from the build: Node 20 runs no
// TypeScript), which then lists the internal modules it loaded.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = (path: string) =>
  fileURLToPath(new URL(`../../../dist/engine/operators/postgres/${path}`, import.meta.url));

/** The undici modules a fresh Node loaded importing `module`, and whether pg works there. */
function undiciLoadedBy(module: string): { undici: string[]; client: string } {
  const script = `
    const { pathToFileURL } = await import('node:url');
    await import(pathToFileURL(${JSON.stringify(module)}).href);
    const { createRequire } = await import('node:module');
    const pg = createRequire(${JSON.stringify(module)})('pg');
    const undici = process.moduleLoadList.filter((m) => m.includes('undici'));
    process.stdout.write(JSON.stringify({ undici, client: typeof pg.Client, navigator: typeof globalThis.navigator }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.status, child.stderr).toBe(0);
  const said = JSON.parse(child.stdout) as { undici: string[]; client: string; navigator: string };
  // What a Node without `navigator` had before still holds after: nothing is left behind.
  expect(said.navigator).toBe(Number(process.versions.node.split('.')[0]) >= 21 ? 'object' : 'undefined');
  return said;
}

describe('the PostgreSQL connectors, as they load', () => {
  it.each([
    ['source.postgres', 'source/postgresSource.js'],
    ['source.postgres: its replication stream', 'source/replicationStream.js'],
    ['sink.postgres', 'sink/postgresSink.js'],
  ])('%s: no undici', (_, module) => {
    const { undici, client } = undiciLoadedBy(dist(module));
    expect(client).toBe('function');
    expect(undici).toEqual([]);
  });
});
