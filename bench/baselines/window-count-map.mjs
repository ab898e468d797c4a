#!/usr/bin/env node
// Baseline: the tumbling-window count written by hand on a Map.
//   node bench/baselines/window-count-map.mjs --in IN.jsonl --out OUT.jsonl --size MS --field t --bound MS
// readline over the input; per record: its window's start (t − t mod size), the count of its key
// in that window + 1 (a Map per window start, of key → count); then the watermark (the highest
// time so far − bound, as the engine makes it after each record) fires every window whose last
// millisecond (end − 1) it has reached, oldest first: one {key, start, end, value} line per key,
// and the window is dropped. At the end of the input every window left fires.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '', size: 0, field: 't', bound: 0 });
const size = opt.size;

/** Window start → Map(key → count); windows are opened in time order, give or take `bound`. */
const windows = new Map();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

let maxTime = Number.NEGATIVE_INFINITY;
let oldest = Number.POSITIVE_INFINITY; // the least start in `windows`

async function fire(watermark) {
  while (windows.size > 0 && oldest + size - 1 <= watermark) {
    const start = oldest;
    const w = windows.get(start);
    windows.delete(start);
    const end = start + size;
    for (const [key, value] of w) {
      if (!out.write(`${JSON.stringify({ key, start, end, value })}\n`)) await once(out, 'drain');
    }
    oldest = windows.size === 0 ? Number.POSITIVE_INFINITY : Math.min(...windows.keys());
  }
}

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  const t = r[opt.field];
  const start = t - (((t % size) + size) % size);
  if (start + size - 1 <= maxTime - opt.bound) continue; // late for its window: dropped, as the engine's late port without an edge
  let w = windows.get(start);
  if (w === undefined) {
    w = new Map();
    windows.set(start, w);
    if (start < oldest) oldest = start;
  }
  w.set(r.k, (w.get(r.k) ?? 0) + 1);
  if (t > maxTime) maxTime = t;
  if (oldest + size - 1 <= maxTime - opt.bound) await fire(maxTime - opt.bound);
}
await fire(Number.POSITIVE_INFINITY);
out.end();
await once(out, 'finish');
