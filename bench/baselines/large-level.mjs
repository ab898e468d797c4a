#!/usr/bin/env node
// Hand-written counterpart of the large-state job (for scale, not a target):
//   node bench/baselines/large-level.mjs --in IN.jsonl --out OUT.jsonl --db DIR [--batch 1000]
// Per FooAdded record: one LevelDB entry per foo under its bar ("map state": key
// bar \0 foos \0 foo, value the JSON payload), and a per-bar counter ("value state",
// read with getSync behind the pending batch) whose new value is emitted as {bar, n}.
// Writes go out in batches of --batch entries, each awaited before reading on.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ClassicLevel } from 'classic-level';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '', db: '', batch: 1000 });

const db = new ClassicLevel(opt.db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
await db.open();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

let pending = new Map();

function write(batch) {
  const chained = db.batch();
  for (const [key, value] of batch) chained.put(key, JSON.stringify(value));
  return chained.write();
}

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  const countKey = `${r.bar}\u0000count`;
  let n = pending.get(countKey);
  if (n === undefined) {
    const raw = db.getSync(countKey);
    n = raw === undefined ? 0 : JSON.parse(raw);
  }
  n += 1;
  pending.set(countKey, n);
  pending.set(`${r.bar}\u0000foos\u0000${r.foo}`, r.payload);
  if (!out.write(`${JSON.stringify({ bar: r.bar, n })}\n`)) await once(out, 'drain');
  if (pending.size >= opt.batch) {
    await write(pending);
    pending = new Map();
  }
}
if (pending.size > 0) await write(pending);
out.end();
await once(out, 'finish');
await db.close();
