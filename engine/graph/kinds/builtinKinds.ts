// The kinds this version ships, in the contract's order (the palette's and the "known kinds"
// message's order). A kind added at run time goes through kindRegistry.registerKind instead.
import { filterKind } from './filter.js';
import { flatMapKind } from './flatMap.js';
import { mapKind } from './map.js';
import { processKind } from './process.js';
import { sinkJsonlKind } from './sinkJsonl.js';
import { sinkKafkaKind } from './sinkKafka.js';
import { sinkPostgresKind } from './sinkPostgres.js';
import { sinkRedisKind } from './sinkRedis.js';
import { sourceGeneratorKind } from './sourceGenerator.js';
import { sourceJsonlKind } from './sourceJsonl.js';
import { sourceKafkaKind } from './sourceKafka.js';
import { sourceNexmarkKind } from './sourceNexmark.js';
import { sourcePostgresKind } from './sourcePostgres.js';
import { sourceRedisKind } from './sourceRedis.js';
import { transactionKind } from './transaction.js';
import { windowKind } from './window.js';

export const BUILTIN_KINDS = [
  sourceJsonlKind,
  sourceGeneratorKind,
  sourceNexmarkKind,
  sourceKafkaKind,
  sourcePostgresKind,
  sourceRedisKind,
  mapKind,
  filterKind,
  flatMapKind,
  processKind,
  windowKind,
  transactionKind,
  sinkJsonlKind,
  sinkKafkaKind,
  sinkPostgresKind,
  sinkRedisKind,
] as const;

export type BuiltinKind = (typeof BUILTIN_KINDS)[number];
