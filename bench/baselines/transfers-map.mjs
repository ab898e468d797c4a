#!/usr/bin/env node
// Baseline: the transfers job written by hand on a Map.
//   node bench/baselines/transfers-map.mjs --in IN.jsonl --out OUT.jsonl
// One transfer at a time in input order: an account not yet written holds the opening balance;
// a transfer of more than `from` holds aborts ({"id","reason":"overdraft"}), any other moves the
// amount and writes {"id","from","to","fromBalance","toBalance"}. All balances on the heap.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { applyTransfer } from '../transferData.mjs';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '' });

const balances = new Map();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

for await (const line of rl) {
  if (line.length === 0) continue;
  if (!out.write(`${JSON.stringify(applyTransfer(balances, JSON.parse(line)))}\n`)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
