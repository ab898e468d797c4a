#!/usr/bin/env node
// The slow way, for contrast: the keyed read-modify-write job with an awaited LevelDB
// get and an awaited put per record (a promise, and a LevelDB write, per record).
//   node bench/baselines/keyed-level-awaited.mjs --in IN.jsonl --out OUT.jsonl --db DIR
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ClassicLevel } from 'classic-level';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '', db: '' });

const db = new ClassicLevel(opt.db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
await db.open();
const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  const raw = await db.get(r.k);
  const a = raw === undefined ? { n: 0, sum: 0 } : JSON.parse(raw);
  a.n += 1;
  a.sum += r.v;
  await db.put(r.k, JSON.stringify(a));
  if (!out.write(`${JSON.stringify({ k: r.k, n: a.n, sum: a.sum })}\n`)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');
await db.close();
