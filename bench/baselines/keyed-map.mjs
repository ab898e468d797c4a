#!/usr/bin/env node
// Baseline (b): the keyed read-modify-write job written by hand on a Map.
//   node bench/baselines/keyed-map.mjs --in IN.jsonl --out OUT.jsonl
// Same as keyed-level.mjs with the state in a Map (no LevelDB, no batches).
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '' });

const state = new Map();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  let a = state.get(r.k);
  if (a === undefined) {
    a = { n: 0, sum: 0 };
    state.set(r.k, a);
  }
  a.n += 1;
  a.sum += r.v;
  if (!out.write(`${JSON.stringify({ k: r.k, n: a.n, sum: a.sum })}\n`)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
