// A stand-in for engine/flink's worker, for the Java side's tests only: it speaks PROTOCOL.md's
// worker pipe and runs one fixed program instead of user code, a running count per key in value
// state "count": for each record it emits {"k", "count"} on port out, and {"k"} on port "first"
// the first time it sees a key. The operator's params steer it (the real worker would compile
// params.code instead):
// - crashMarker FILE + crashAfterCheckpointIn DIR: on a batch that comes once DIR holds a
//   completed checkpoint (DIR/JOB/chk-N/_metadata), if FILE does not exist, create it and exit(3)
//   without answering: a worker that dies, once, after a checkpoint (so the restart restores one);
// - batchDelayMs: wait that long before answering each batch (so checkpoints come in between);
// - opensLog FILE: append a line per `open` (to count restarts);
// - stateless: true: no state at all; each record goes out with "via" (its edge, ctx.input) and
//   "at" (the subtask) added, to check unions, forward, rebalance and broadcast;
// - stateKinds: true: map state "m" and list state "l" instead of the count: a record
//   {"add": x} adds x to l and puts "kx" -> x*10 in m, {"del": x} deletes "kx", {"get": x} emits
//   m's "kx", {"q": true} emits m's entries (sorted) and l's values, {"clear": true} clears both.
//   It keeps no cache across records, so it is only right with batch.records 1;
// - a record with "boom": true: answer {"t":"error"} with the message "boom at key K".
// - hops: true: no state; a record {"k","i","hops"} with hops > 0 goes on port "again" as
//   {"k": the next key, "i", "hops": hops - 1} (a loop's feedback edge reads that port), one with
//   hops 0 goes out as {"i", "via"} (its edge, ctx.input).
// As the real worker does (PROTOCOL.md, "Two batches in flight", "Watermarks among the records"),
// it keeps a batch that comes while it waits for a read's answer for later, carries the counts
// the last batch ended with over the next one's `s`, and answers a watermark item with null.
// Plain Node.js, no dependencies.
import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let buffered = Buffer.alloc(0);
const frames = [];
let waiting = null;
let ended = false;

process.stdin.on('data', (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  while (buffered.length >= 4) {
    const n = buffered.readUInt32BE(0);
    if (buffered.length < 4 + n) break;
    frames.push(JSON.parse(buffered.subarray(4, 4 + n).toString('utf8')));
    buffered = buffered.subarray(4 + n);
  }
  wake();
});
process.stdin.on('end', () => {
  ended = true;
  wake();
});

function wake() {
  if (waiting && (frames.length > 0 || ended)) {
    const w = waiting;
    waiting = null;
    w();
  }
}

async function next() {
  while (frames.length === 0) {
    if (ended) process.exit(0); // the runner is gone: so is the worker
    await new Promise((resolve) => {
      waiting = resolve;
    });
  }
  return frames.shift();
}

function send(message) {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  process.stdout.write(Buffer.concat([head, body]));
}

/** Whether a checkpoint has completed under `dir` (Flink writes _metadata last). */
function checkpointed(dir) {
  if (!existsSync(dir)) return false;
  for (const job of readdirSync(dir)) {
    let entries = [];
    try {
      entries = readdirSync(join(dir, job));
    } catch {
      continue;
    }
    if (entries.some((e) => e.startsWith('chk-') && existsSync(join(dir, job, e, '_metadata')))) return true;
  }
  return false;
}

/** Batches that came while a read waited for its answer, oldest first. */
const ahead = [];

/** The answer to a read: a batch that comes first waits in `ahead`. */
async function answer() {
  for (;;) {
    const frame = await next();
    if (frame.t !== 'batch') return frame;
    ahead.push(frame);
  }
}

async function ask(request) {
  send({ t: 'read', ...request });
  return answer();
}

async function stateKinds(records) {
  const out = [];
  const writes = [];
  for (const [i, item] of records.entries()) {
    if ('wm' in item) {
      out.push(null);
      continue;
    }
    const { k, r } = item;
    if (r.add !== undefined) {
      writes.push(
        [i, 'l', 'l', JSON.stringify(r.add)],
        [i, 'm', 'm', `k${r.add}`, JSON.stringify(r.add * 10)],
      );
    } else if (r.del !== undefined) {
      writes.push([i, 'm', 'm', `k${r.del}`, null]);
    } else if (r.get !== undefined) {
      const { v } = await ask({ i, what: 'map', name: 'm', mk: `k${r.get}` });
      out.push(JSON.stringify({ k, get: r.get, v }));
    } else if (r.q) {
      const { entries } = await ask({ i, what: 'mapEntries', name: 'm' });
      const { values } = await ask({ i, what: 'list', name: 'l' });
      entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      out.push(JSON.stringify({ k, entries, list: values }));
    } else if (r.clear) {
      writes.push([i, 'mc', 'm'], [i, 'lc', 'l']);
    }
  }
  return { t: 'done', out, writes };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let params = {};
let subtask = -1;
/** The counts the last batch ended with, by key JSON: newer than a `s` read while it was out. */
let previous = new Map();

for (;;) {
  const frame = ahead.length > 0 ? ahead.shift() : await next();
  if (frame.t === 'open') {
    params = frame.operator.params ?? {};
    subtask = frame.subtask;
    if (params.opensLog) appendFileSync(params.opensLog, `${frame.subtask}\n`);
    send({ t: 'ready' });
  } else if (frame.t === 'close') {
    process.exit(0);
  } else if (frame.t === 'batch') {
    if (
      params.crashMarker &&
      !existsSync(params.crashMarker) &&
      checkpointed(params.crashAfterCheckpointIn)
    ) {
      writeFileSync(params.crashMarker, 'crashed\n');
      process.exit(3);
    }
    if (params.stateless) {
      send({
        t: 'done',
        out: frame.records.map((rec) =>
          'wm' in rec ? null : JSON.stringify({ ...rec.r, via: rec.e, at: subtask }),
        ),
        writes: [],
      });
      continue;
    }
    if (params.hops) {
      const out = frame.records.map((rec) => {
        if ('wm' in rec) return null;
        const { k, i, hops } = rec.r;
        if (hops === 0) return JSON.stringify({ i, via: rec.e });
        return ['again', JSON.stringify({ k: `k${(Number(k.slice(1)) * 5 + 3) % 11}`, i, hops: hops - 1 })];
      });
      if (params.batchDelayMs) await sleep(params.batchDelayMs);
      send({ t: 'done', out, writes: [] });
      continue;
    }
    if (params.stateKinds) {
      send(await stateKinds(frame.records));
      continue;
    }
    const cache = new Map(); // key JSON -> count text, this batch's writes
    const out = [];
    const writes = [];
    let failed = false;
    for (const [i, rec] of frame.records.entries()) {
      if ('wm' in rec) {
        out.push(null);
        continue;
      }
      if (rec.r.boom) {
        send({ t: 'error', message: `boom at key ${rec.k}` });
        failed = true;
        break;
      }
      const key = JSON.stringify(rec.k);
      let before;
      if (cache.has(key)) before = cache.get(key);
      else if (previous.has(key)) before = previous.get(key);
      else if (rec.s && 'count' in rec.s) before = rec.s.count;
      else before = (await ask({ i, what: 'value', name: 'count' })).v;
      const count = (before === null ? 0 : JSON.parse(before)) + 1;
      cache.set(key, String(count));
      writes.push([i, 'v', 'count', String(count)]);
      out.push(JSON.stringify({ k: rec.k, count }));
      if (count === 1) out.push(['first', JSON.stringify({ k: rec.k })]);
    }
    previous = cache;
    if (failed) continue;
    if (params.batchDelayMs) await sleep(params.batchDelayMs);
    send({ t: 'done', out, writes });
  }
}
