#!/usr/bin/env node
// Baseline: an event-time timer per record, written by hand with a heap of timers.
//   node bench/baselines/timers-heap.mjs --in IN.jsonl --out OUT.jsonl --delay MS --field t --bound MS
// readline over the input; per record: a timer for its key at its time + delay, dropped when the
// key has one at that time already (a Set of "time\0key", as Flink's HeapPriorityQueueSet); then
// the watermark (the highest time so far − bound, as the engine makes it after each record)
// fires every timer at or before it, earliest first from a binary heap: one {k, t} line each.
// At the end of the input every timer left fires.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from './args.mjs';

const opt = parseArgs(process.argv.slice(2), { in: '', out: '', delay: 0, field: 't', bound: 0 });

/** A binary heap of [time, key], least time first. */
const heap = [];
const held = new Set();

function push(timer) {
  heap.push(timer);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent][0] <= timer[0]) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = timer;
}

function pop() {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0) {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right][0] < heap[left][0] ? right : left;
      if (heap[child][0] >= last[0]) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
  }
  return top;
}

const out = createWriteStream(opt.out);
const rl = createInterface({ input: createReadStream(opt.in), crlfDelay: Number.POSITIVE_INFINITY });

async function fire(watermark) {
  while (heap.length > 0 && heap[0][0] <= watermark) {
    const [t, k] = pop();
    held.delete(`${t}\0${k}`);
    if (!out.write(`${JSON.stringify({ k, t })}\n`)) await once(out, 'drain');
  }
}

let maxTime = Number.NEGATIVE_INFINITY;
for await (const line of rl) {
  if (line.length === 0) continue;
  const r = JSON.parse(line);
  const t = r[opt.field];
  const at = t + opt.delay;
  const id = `${at}\0${r.k}`;
  if (!held.has(id)) {
    held.add(id);
    push([at, r.k]);
  }
  if (t > maxTime) maxTime = t;
  if (heap[0][0] <= maxTime - opt.bound) await fire(maxTime - opt.bound);
}
await fire(Number.POSITIVE_INFINITY);
out.end();
await once(out, 'finish');
