// Kind name -> factory, the Node-side twin of engine/graph's kind registry. Built-in kinds are
// here statically; any other kind comes in as a kind module, registered by specifier
// (loadKindModule), which adds its descriptor to the graph's registry and its factory here at
// once. A thread that runs operators (the CLI's run thread, each worker of the parallel executor)
// loads the same specifiers, so every thread knows the same kinds.

import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerKind } from '../graph/kinds/kindRegistry.js';
import type { KindFactory, KindModule } from './kindFactory.js';
import { sinkJsonlFactory } from './sinkJsonl.js';
import { sourceGeneratorFactory } from './sourceGenerator.js';
import { sourceJsonlFactory } from './sourceJsonl.js';
import { userFunctionFactory } from './userFunctions.js';
import { windowFactory } from './windowLogic.js';

const factories = new Map<string, KindFactory>([
  ['source.jsonl', sourceJsonlFactory],
  ['source.generator', sourceGeneratorFactory],
  ['map', userFunctionFactory],
  ['filter', userFunctionFactory],
  ['flatMap', userFunctionFactory],
  ['process', userFunctionFactory],
  ['window', windowFactory],
  ['sink.jsonl', sinkJsonlFactory],
]);

// The connectors' client libraries are slow to load (measured on an idle machine:
// @platformatic/kafka 1.1 s, redis 0.36 s): a job that uses none of them must not pay that at the
// CLI's start and again in every worker thread. Their factories load when a job, or a connection
// test, names their kind (loadFactories); until then findFactory does not know them.
// NEXMark's generator and the transaction operator are some 40 modules between them, loaded in
// the CLI's thread and again in every worker: a job that uses neither does not load them (with
// the connectors below, an empty job started ~10% faster).
const connectorFactories = new Map<string, () => Promise<KindFactory>>([
  ['source.nexmark', async () => (await import('./sourceNexmark.js')).sourceNexmarkFactory],
  ['transaction', async () => (await import('./transactionLogic.js')).transactionFactory],
  ['source.kafka', async () => (await import('./kafka/source/sourceKafka.js')).sourceKafkaFactory],
  ['sink.kafka', async () => (await import('./kafka/sink/kafkaSinkFactory.js')).sinkKafkaFactory],
  [
    'source.postgres',
    async () => (await import('./postgres/source/postgresSource.js')).sourcePostgresFactory,
  ],
  ['sink.postgres', async () => (await import('./postgres/sink/postgresSink.js')).sinkPostgresFactory],
  ['source.redis', async () => (await import('./redis/sourceRedis.js')).sourceRedisFactory],
  ['sink.redis', async () => (await import('./redis/sinkRedis.js')).sinkRedisFactory],
]);

/** Loads the factories of these kinds that load on demand (the connectors'), once each. */
export async function loadFactories(kinds: Iterable<string>): Promise<void> {
  await Promise.all(
    [...new Set(kinds)].map(async (kind) => {
      const load = connectorFactories.get(kind);
      if (load !== undefined && !factories.has(kind)) factories.set(kind, await load());
    }),
  );
}

/** Kind modules loaded so far, by resolved URL: loading one twice registers it once. */
const loaded = new Map<string, Promise<void>>();

/** The factory of a kind, if its Node side is known here. */
export function findFactory(kind: string): KindFactory | undefined {
  return factories.get(kind);
}

/**
 * Registers a kind: its descriptor (validation, the job schema, the designer) and its factory.
 * Returns a function that removes both again (for tests).
 */
export function registerKindModule(module: KindModule): () => void {
  const kind = module.descriptor.kind;
  if (factories.has(kind) || connectorFactories.has(kind))
    throw new Error(`kind "${kind}" is already registered`);
  if (module.factory.role !== module.descriptor.role) {
    throw new Error(
      `kind "${kind}": its descriptor says ${module.descriptor.role} but its factory makes a ${module.factory.role}`,
    );
  }
  const unregister = registerKind(module.descriptor);
  factories.set(kind, module.factory);
  return () => {
    if (factories.get(kind) !== module.factory) return;
    factories.delete(kind);
    unregister();
  };
}

/**
 * Loads a kind module (an absolute path or a URL) and registers what its `kind` export holds.
 * The specifier, a string, is what a thread hands another so that it loads the same kinds.
 */
export function loadKindModule(specifier: string): Promise<void> {
  const url = isAbsolute(specifier) ? pathToFileURL(specifier).href : specifier;
  let loading = loaded.get(url);
  if (loading === undefined) {
    loading = (async () => {
      const module = (await import(url)) as { kind?: KindModule };
      if (module.kind?.descriptor === undefined || module.kind.factory === undefined) {
        throw new Error(
          `${specifier} is not a kind module: it exports no \`kind\` with a descriptor and a factory`,
        );
      }
      registerKindModule(module.kind);
    })();
    loaded.set(url, loading);
    loading.catch(() => loaded.delete(url));
  }
  return loading;
}
