// Kind name -> factory, the Node-side twin of engine/graph's kind registry. Built-in kinds are
// here statically; any other kind comes in as a kind module, registered by specifier
// (loadKindModule), which adds its descriptor to the graph's registry and its factory here at
// once. A thread that runs operators (the next executor runs them on several) loads the same
// specifiers, so every thread knows the same kinds.

import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerKind } from '../graph/kinds/kindRegistry.js';
import { sinkKafkaFactory } from './kafka/sink/kafkaSinkFactory.js';
import { sourceKafkaFactory } from './kafka/source/sourceKafka.js';
import type { KindFactory, KindModule } from './kindFactory.js';
import { sinkPostgresFactory } from './postgres/sink/postgresSink.js';
import { sourcePostgresFactory } from './postgres/source/postgresSource.js';
import { sinkRedisFactory } from './redis/sinkRedis.js';
import { sourceRedisFactory } from './redis/sourceRedis.js';
import { sinkJsonlFactory } from './sinkJsonl.js';
import { sourceGeneratorFactory } from './sourceGenerator.js';
import { sourceJsonlFactory } from './sourceJsonl.js';
import { sourceNexmarkFactory } from './sourceNexmark.js';
import { transactionFactory } from './transactionLogic.js';
import { userFunctionFactory } from './userFunctions.js';
import { windowFactory } from './windowLogic.js';

const factories = new Map<string, KindFactory>([
  ['source.jsonl', sourceJsonlFactory],
  ['source.generator', sourceGeneratorFactory],
  ['source.nexmark', sourceNexmarkFactory],
  ['source.kafka', sourceKafkaFactory],
  ['source.postgres', sourcePostgresFactory],
  ['map', userFunctionFactory],
  ['filter', userFunctionFactory],
  ['flatMap', userFunctionFactory],
  ['process', userFunctionFactory],
  ['window', windowFactory],
  ['transaction', transactionFactory],
  ['sink.jsonl', sinkJsonlFactory],
  ['sink.postgres', sinkPostgresFactory],
  ['source.redis', sourceRedisFactory],
  ['sink.redis', sinkRedisFactory],
  ['sink.kafka', sinkKafkaFactory],
]);

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
  if (factories.has(kind)) throw new Error(`kind "${kind}" is already registered`);
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
