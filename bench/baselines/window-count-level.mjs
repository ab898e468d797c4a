#!/usr/bin/env node
// Baseline: the tumbling-window count written by hand on LevelDB.
//   node bench/baselines/window-count-level.mjs --in IN.jsonl --out OUT.jsonl --db DIR --size MS
//        [--field t] [--bound MS] [--batch 1000]
// As window-count-map.mjs, with each key's count in a window kept in LevelDB under
// "<window start>:<key>" and read and written as keyed-level.mjs does its state: per record the
// count comes from the pending batch's Map, else from the batch being written, else from
// classic-level's synchronous getSync; the new count goes into the pending Map, written as one
// chained batch when it holds --batch keys, one batch in flight while the next fills. Only the
// set of open window starts is on the heap. When the watermark reaches a window's end − 1, the
// batches are written, the window's range is read with an iterator (one {key, start, end, value}
// line per entry) and cleared. Window starts are written in decimal, so their order as strings
// is their order as numbers only for starts of the same length (positive 13-digit epoch ms here).
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ClassicLevel } from 'classic-level';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), {
  in: '',
  out: '',
  db: '',
  size: 0,
  field: 't',
  bound: 0,
  batch: 1000,
});
const size = opt.size;

const db = new ClassicLevel(opt.db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
await db.open();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

let pending = new Map();
let flying = new Map();
let flight; // the promise of the batch write in flight, if any
const open = new Set(); // window starts with state
let oldest = Number.POSITIVE_INFINITY;
let maxTime = Number.NEGATIVE_INFINITY;

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

/** Window start → its key range: "<start>:" up to "<start>;" (';' follows ':'). */
const range = (start) => ({ gte: `${start}:`, lt: `${start};` });

async function fire(watermark) {
  if (flight) await flight;
  flight = undefined;
  flying = new Map();
  if (pending.size > 0) await write(pending);
  pending = new Map();
  while (open.size > 0 && oldest + size - 1 <= watermark) {
    const start = oldest;
    const end = start + size;
    const prefix = `${start}:`.length;
    for await (const [k, v] of db.iterator(range(start))) {
      const line = `${JSON.stringify({ key: k.slice(prefix), start, end, value: Number(v) })}\n`;
      if (!out.write(line)) await once(out, 'drain');
    }
    await db.clear(range(start));
    open.delete(start);
    oldest = open.size === 0 ? Number.POSITIVE_INFINITY : Math.min(...open);
  }
}

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  const t = r[opt.field];
  const start = t - (((t % size) + size) % size);
  if (start + size - 1 <= maxTime - opt.bound) continue; // late for its window: dropped
  if (!open.has(start)) {
    open.add(start);
    if (start < oldest) oldest = start;
  }
  const key = `${start}:${r.k}`;
  let n = pending.get(key);
  if (n === undefined) {
    n = flying.get(key);
    if (n === undefined) {
      const raw = db.getSync(key);
      n = raw === undefined ? 0 : Number(raw);
    }
  }
  pending.set(key, n + 1);
  if (pending.size >= opt.batch) await flush();
  if (t > maxTime) maxTime = t;
  if (oldest + size - 1 <= maxTime - opt.bound) await fire(maxTime - opt.bound);
}
await fire(Number.POSITIVE_INFINITY);
out.end();
await once(out, 'finish');
await db.close();
