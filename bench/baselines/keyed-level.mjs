#!/usr/bin/env node
// Baseline (a): the keyed read-modify-write job written by hand on LevelDB.
//   node bench/baselines/keyed-level.mjs --in IN.jsonl --out OUT.jsonl --db DIR [--batch 1000] [--inflight 0|1]
// readline over the input; per record: read the key's {n, sum} from the pending batch's
// Map, else from the batch being written, else with classic-level's synchronous getSync;
// update; remember the write in the pending Map; write {k, n, sum} to a write stream
// (awaiting 'drain' when it asks). When the pending Map holds --batch distinct keys it is
// written as one LevelDB (chained) batch. --inflight 0 awaits each batch write before reading on;
// --inflight 1 lets one batch write run while the next batch fills (reads also look into
// the batch in flight) and awaits it only when the next one is ready.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ClassicLevel } from 'classic-level';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '', db: '', batch: 1000, inflight: 0 });

const db = new ClassicLevel(opt.db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
await db.open();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

let pending = new Map();
let flying = new Map();
let flight; // the promise of the batch write in flight, if any

function write(batch) {
  const chained = db.batch();
  for (const [key, value] of batch) chained.put(key, JSON.stringify(value));
  return chained.write();
}

async function flush() {
  if (opt.inflight) {
    if (flight) await flight;
    flying = pending;
    pending = new Map();
    flight = write(flying);
  } else {
    await write(pending);
    pending = new Map();
  }
}

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  let a = pending.get(r.k);
  if (a === undefined) {
    const f = flying.get(r.k);
    if (f !== undefined) a = { n: f.n, sum: f.sum };
    else {
      const raw = db.getSync(r.k);
      a = raw === undefined ? { n: 0, sum: 0 } : JSON.parse(raw);
    }
  }
  a.n += 1;
  a.sum += r.v;
  pending.set(r.k, a);
  if (!out.write(`${JSON.stringify({ k: r.k, n: a.n, sum: a.sum })}\n`)) await once(out, 'drain');
  if (pending.size >= opt.batch) await flush();
}
if (flight) await flight;
if (pending.size > 0) await write(pending);
out.end();
await once(out, 'finish');
await db.close();
