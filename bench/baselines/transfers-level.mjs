#!/usr/bin/env node
// Baseline: the transfers job written by hand on LevelDB.
//   node bench/baselines/transfers-level.mjs --in IN.jsonl --out OUT.jsonl --db DIR [--batch 1000]
// As transfers-map.mjs, with each balance in LevelDB under the account's name, read and written
// as keyed-level.mjs does its state: a balance comes from the pending batch's Map, else from the
// batch being written, else from classic-level's synchronous getSync (missing: the opening
// balance); both new balances go into the pending Map, written as one chained batch when it
// holds --batch accounts, one batch in flight while the next fills. An aborted transfer writes
// nothing.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ClassicLevel } from 'classic-level';
import { OPENING_BALANCE } from '../transferData.mjs';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '', db: '', batch: 1000 });

const db = new ClassicLevel(opt.db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
await db.open();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

let pending = new Map();
let flying = new Map();
let flight; // the promise of the batch write in flight, if any

function write(batch) {
  const chained = db.batch();
  for (const [key, value] of batch) chained.put(key, String(value));
  return chained.write();
}

async function flush() {
  if (flight) await flight;
  flying = pending;
  pending = new Map();
  flight = write(flying);
}

function balance(account) {
  const n = pending.get(account) ?? flying.get(account);
  if (n !== undefined) return n;
  const raw = db.getSync(account);
  return raw === undefined ? OPENING_BALANCE : Number(raw);
}

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  const from = balance(r.from);
  let o;
  if (from < r.amount) o = { id: r.id, reason: 'overdraft' };
  else {
    const to = balance(r.to);
    pending.set(r.from, from - r.amount);
    pending.set(r.to, to + r.amount);
    o = { id: r.id, from: r.from, to: r.to, fromBalance: from - r.amount, toBalance: to + r.amount };
  }
  if (!out.write(`${JSON.stringify(o)}\n`)) await once(out, 'drain');
  if (pending.size >= opt.batch) await flush();
}
if (flight) await flight;
if (pending.size > 0) await write(pending);
out.end();
await once(out, 'finish');
await db.close();
