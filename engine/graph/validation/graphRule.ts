// A graph rule: one named check of the job's wiring, reading the facts every rule shares.
import type { Finding } from './finding.js';
import type { GraphContext } from './graphFacts.js';

export type GraphRule = (ctx: GraphContext) => Finding[];
