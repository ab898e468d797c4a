// pg and pg-logical-replication, loaded here only (other files import their types). On Node 20,
// which has no `navigator`, pg asks whether it runs on Cloudflare Workers by constructing a
// `Response` as it loads (pg/lib/stream.js), and Node's first `Response` loads its fetch
// implementation, undici: 30–45 ms of a run thread's start, for an answer that is always no here.
// While they load, a `navigator` saying Node stands in, as Node 21 and later have one of their
// own, and pg answers from it; it is removed as soon as they are loaded. The loads are `require`
// calls because they must happen inside that window: an `import` of the packages would be
// hoisted above it (in the bundle too, where they stay outside: scripts/bundleCli.mjs).
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { PgoutputPlugin as Plugin } from 'pg-logical-replication';

const require = createRequire(import.meta.url);

function withNodeNavigator<T>(load: () => T): T {
  if ('navigator' in globalThis) return load();
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Node.js' }, configurable: true });
  try {
    return load();
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

/** pg's Client. */
export const PgClient: typeof pg.Client = withNodeNavigator(() => require('pg') as typeof pg).Client;

let plugin: typeof Plugin | undefined;

/** pg-logical-replication's pgoutput decoder, loaded by the first replication stream. */
export function pgoutputPlugin(): typeof Plugin {
  plugin ??= withNodeNavigator(
    () => (require('pg-logical-replication') as { PgoutputPlugin: typeof Plugin }).PgoutputPlugin,
  );
  return plugin;
}
