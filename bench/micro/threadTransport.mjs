#!/usr/bin/env node
// Micro-benchmark: moving batches of channel items (engine-shaped record envelopes) from one
// worker thread to another, with credit-based flow control. Standalone, plain Node.
//
//   node bench/micro/threadTransport.mjs [--records N] [--rounds R] [--inflight N]
//                                        [--batches 256,1024] [--modes clone,bytes,...]
//
// Modes (the producer and the consumer are two workers; the main thread only times them):
//   clone        the batch (an array of envelope objects) through MessagePort.postMessage:
//                structured clone; the consumer takes each batch in a 'message' event.
//   bytes        the batch encoded to bytes: compact JSON, each record an array, the
//                record sources interned in a table at the head of the batch, TextEncoder;
//                the ArrayBuffer transferred; decoded with Buffer.from(ab).toString() and
//                JSON.parse, back into envelope objects; 'message' events.
//   text         the same compact JSON posted as a string: structured clone copies a string as
//                flat bytes, so this skips TextEncoder and Buffer.toString (what the engine does).
//   ring         the same bytes through a SharedArrayBuffer ring (one producer, one
//                consumer, Atomics for the indices): the consumer waits for data, and the
//                producer for space, with Atomics.waitAsync. The ring's size is the flow control.
//   clone-poll   as clone, but the consumer drains its port with receiveMessageOnPort
//   bytes-poll   as bytes, likewise
//   text-poll    as text, likewise   (a 'message' event only wakes it when it was idle; the
//                producer also takes its credits with receiveMessageOnPort before waiting).
// Flow control in the port modes: the consumer returns a credit per batch it has processed;
// the producer stops when --inflight records are in flight. The ring holds as many bytes
// as --inflight records take encoded (rounded up to a power of two).
// Per record the consumer does a trivial amount of work (reads the value, the key and the
// position into a checksum), checked at the end against the producer's.
//
// Prints a table on stderr and one JSON object on stdout:
//   { records, rounds, inflight, rows: [{ mode, batch, recordsPerSec, mbPerSec, wireBytesPerRecord,
//     producerBusy, consumerBusy, runsMs }], codec: [{ batch, cloneEncodeNs, cloneDecodeNs,
//     bytesEncodeNs, bytesDecodeNs }] }
// Each row is the best of --rounds rounds (after one warm-up round) of a pair of workers of its
// own; the rounds go round-robin over the pairs.
// MB/s counts a record's bytes in that mode's own form (V8's serializer for a structured clone).
// Busy: each worker's event-loop utilization over the best round (1: never idle, the limit).
// codec: each side's work measured alone on the main thread first, ns per record (see codecCost).
import { performance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';
import {
  isMainThread,
  MessageChannel,
  parentPort,
  receiveMessageOnPort,
  Worker,
  workerData,
} from 'node:worker_threads';

const MODES = ['clone', 'bytes', 'text', 'ring', 'clone-poll', 'bytes-poll', 'text-poll'];
/** Distinct envelopes the producer cycles through (distinct keys, values and positions). */
const POOL = 4096;

function makePool() {
  const source = { kind: 'file', operatorId: 'src', file: '/x/in.jsonl' };
  const pool = [];
  for (let i = 0; i < POOL; i++) {
    const k = `key-${String(10_000 + ((i * 7919) % 90_000)).padStart(5, '0')}`;
    pool.push({
      type: 'record',
      value: { k, v: (i * 31) % 1000 },
      key: k,
      keyGroup: (i * 13) % 128,
      timestamp: undefined,
      source,
      position: 100_000 + i * 26,
    });
  }
  return pool;
}

/** The consumer's work on one record; the producer computes the same to check the total. */
function work(env) {
  return (env.value.v + env.key.length + env.keyGroup + (env.position & 7)) | 0;
}

// ---------------------------------------------------------------------------------------
// The encoding (bytes and ring): [sources, rows], a row [value, key, keyGroup, timestamp, sourceIndex, position]

const encoder = new TextEncoder();

function encodeText(batch) {
  const sources = [];
  const index = new Map();
  const rows = new Array(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const e = batch[i];
    let s = -1;
    if (e.source !== undefined) {
      s = index.get(e.source);
      if (s === undefined) {
        s = sources.length;
        sources.push(e.source);
        index.set(e.source, s);
      }
    }
    rows[i] = [e.value, e.key, e.keyGroup, e.timestamp ?? null, s, e.position];
  }
  return JSON.stringify([sources, rows]);
}

function decodeText(text) {
  const [sources, rows] = JSON.parse(text);
  const out = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    out[i] = {
      type: 'record',
      value: r[0],
      key: r[1],
      keyGroup: r[2],
      timestamp: r[3] ?? undefined,
      source: r[4] < 0 ? undefined : sources[r[4]],
      position: r[5],
    };
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The SharedArrayBuffer ring: Int32 header [head, tail] (monotonic byte counts, wrapping at
// 2^32), then `capacity` bytes of messages, each a 4-byte length and the text, padded to 4.
// A length of -1 means "the rest of the ring is empty: go on at its start".

const HEAD = 0;
const TAIL = 1;
const HEADER_BYTES = 8;

function ringOf(sab) {
  const i32 = new Int32Array(sab, 0, 2);
  const capacity = sab.byteLength - HEADER_BYTES;
  const bytes = new Uint8Array(sab, HEADER_BYTES, capacity);
  return { sab, i32, capacity, bytes, view: new DataView(sab, HEADER_BYTES, capacity) };
}

async function ringWrite(ring, text) {
  const { i32, capacity, bytes, view } = ring;
  const len = Buffer.byteLength(text);
  const need = (4 + len + 3) & ~3;
  if (need > capacity / 2) throw new Error(`a batch of ${len} bytes is too large for the ring`);
  for (;;) {
    const head = Atomics.load(i32, HEAD);
    const tail = Atomics.load(i32, TAIL);
    const at = head & (capacity - 1);
    const skip = at + need > capacity ? capacity - at : 0;
    if (capacity - ((head - tail) | 0) >= skip + need) {
      let pos = at;
      if (skip > 0) {
        if (capacity - at >= 4) view.setInt32(at, -1, true);
        pos = 0;
      }
      view.setInt32(pos, len, true);
      encoder.encodeInto(text, bytes.subarray(pos + 4, pos + 4 + len));
      Atomics.store(i32, HEAD, (head + skip + need) | 0);
      Atomics.notify(i32, HEAD);
      return;
    }
    const w = Atomics.waitAsync(i32, TAIL, tail);
    if (w.async) await w.value;
  }
}

/** The next message's text, or undefined when the ring is empty. */
function ringRead(ring) {
  const { sab, i32, capacity, view } = ring;
  const head = Atomics.load(i32, HEAD);
  let tail = Atomics.load(i32, TAIL);
  if (head === tail) return undefined;
  let at = tail & (capacity - 1);
  if (capacity - at < 4 || view.getInt32(at, true) === -1) {
    tail = (tail + (capacity - at)) | 0;
    at = 0;
  }
  const len = view.getInt32(at, true);
  const text = Buffer.from(sab, HEADER_BYTES + at + 4, len).toString();
  Atomics.store(i32, TAIL, (tail + ((4 + len + 3) & ~3)) | 0);
  Atomics.notify(i32, TAIL);
  return text;
}

// ---------------------------------------------------------------------------------------
// The workers

function producerMain({ port, ring: sab, mode, batch, inflight }) {
  const pool = makePool();
  const ring = sab && ringOf(sab);
  const poll = mode.endsWith('-poll');
  let credits = inflight;
  let wake;
  port?.on('message', (n) => {
    credits += n;
    wake?.();
  });
  const waitCredit = () => {
    if (poll) {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) credits += m.message;
      if (credits >= batch) return undefined;
    }
    return new Promise((resolve) => {
      wake = () => {
        wake = undefined;
        resolve();
      };
    });
  };
  parentPort.on('message', async ({ records }) => {
    const elu = performance.eventLoopUtilization();
    let sent = 0;
    let check = 0;
    let cursor = 0;
    while (sent < records) {
      const n = Math.min(batch, records - sent);
      const items = new Array(n);
      for (let i = 0; i < n; i++) {
        items[i] = pool[cursor];
        check = (check + work(pool[cursor])) | 0;
        cursor = (cursor + 1) & (POOL - 1);
      }
      if (ring) {
        await ringWrite(ring, encodeText(items));
      } else {
        while (credits < n) await waitCredit();
        credits -= n;
        if (mode.startsWith('clone')) port.postMessage(items);
        else if (mode.startsWith('text')) port.postMessage(encodeText(items));
        else {
          const buf = encoder.encode(encodeText(items)).buffer;
          port.postMessage(buf, [buf]);
        }
      }
      sent += n;
    }
    parentPort.postMessage({ check, busy: performance.eventLoopUtilization(elu).utilization });
  });
}

function consumerMain({ port, ring: sab, mode }) {
  const ring = sab && ringOf(sab);
  const clone = mode.startsWith('clone');
  let target = 0;
  let seen = 0;
  let check = 0;
  let elu;
  const take = (items) => {
    for (let i = 0; i < items.length; i++) check = (check + work(items[i])) | 0;
    seen += items.length;
    if (seen === target) {
      parentPort.postMessage({ check, busy: performance.eventLoopUtilization(elu).utilization });
    }
  };
  const onBatch = (data) => {
    const items = clone ? data : decodeText(typeof data === 'string' ? data : Buffer.from(data).toString());
    take(items);
    port.postMessage(items.length);
  };
  parentPort.on('message', ({ records }) => {
    target = records;
    seen = 0;
    check = 0;
    elu = performance.eventLoopUtilization();
    parentPort.postMessage({ ready: true });
  });
  if (ring) {
    (async () => {
      for (;;) {
        const text = ringRead(ring);
        if (text !== undefined) {
          take(decodeText(text));
          continue;
        }
        const w = Atomics.waitAsync(ring.i32, HEAD, Atomics.load(ring.i32, TAIL));
        if (w.async) await w.value;
      }
    })();
  } else if (mode.endsWith('-poll')) {
    port.on('message', (data) => {
      onBatch(data);
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) onBatch(m.message);
    });
  } else {
    port.on('message', onBatch);
  }
}

// ---------------------------------------------------------------------------------------
// The main thread: one pair of workers per mode and batch size, one warm-up round, then the rounds

/** The worker's replies, in order, as promises: `next()` is the next one; an error rejects them all. */
function replies(worker) {
  const queue = [];
  const waiting = [];
  let failed;
  worker.on('message', (m) => (waiting.length ? waiting.shift().resolve(m) : queue.push(m)));
  worker.on('error', (e) => {
    failed = e;
    for (const w of waiting.splice(0)) w.reject(e);
  });
  return {
    next: () =>
      queue.length
        ? Promise.resolve(queue.shift())
        : failed
          ? Promise.reject(failed)
          : new Promise((resolve, reject) => waiting.push({ resolve, reject })),
  };
}

function wireBytesPerRecord(mode, batch) {
  const items = makePool().slice(0, batch);
  const bytes = mode.startsWith('clone') ? serialize(items).length : Buffer.byteLength(encodeText(items));
  return bytes / batch;
}

/** A producer and a consumer worker joined by `mode`'s transport; `round()` times one round. */
function openPair(mode, batch, { records, inflight }) {
  const perRecord = wireBytesPerRecord(mode, batch);
  const data = { mode, batch, inflight };
  const transferList = [];
  let producerData;
  let consumerData;
  if (mode === 'ring') {
    let capacity = 1024;
    while (capacity < inflight * perRecord) capacity *= 2;
    const ring = new SharedArrayBuffer(HEADER_BYTES + capacity);
    producerData = { ...data, ring };
    consumerData = { ...data, ring };
  } else {
    const { port1, port2 } = new MessageChannel();
    producerData = { ...data, port: port1 };
    consumerData = { ...data, port: port2 };
    transferList.push(port1, port2);
  }
  const self = new URL(import.meta.url);
  const producer = new Worker(self, {
    workerData: { role: 'producer', ...producerData },
    transferList: transferList.slice(0, 1),
  });
  const consumer = new Worker(self, {
    workerData: { role: 'consumer', ...consumerData },
    transferList: transferList.slice(1),
  });
  const fromProducer = replies(producer);
  const fromConsumer = replies(consumer);
  return {
    mode,
    batch,
    perRecord,
    times: [],
    async round() {
      // The consumer knows how many records to expect before the first one can reach it.
      consumer.postMessage({ records });
      await fromConsumer.next();
      const done = [fromProducer.next(), fromConsumer.next()];
      const t0 = performance.now();
      producer.postMessage({ records });
      const [p, c] = await Promise.all(done);
      const ms = performance.now() - t0;
      if (p.check !== c.check)
        throw new Error(`${mode}/${batch}: checksums differ (${p.check} vs ${c.check})`);
      return { ms, producerBusy: p.busy, consumerBusy: c.busy };
    },
    close: () => Promise.all([producer.terminate(), consumer.terminate()]),
  };
}

/**
 * Every pair gets a warm-up round, then the rounds go round-robin over the pairs (one round of
 * each in turn), so a slow spell of the machine hits them all alike; each pair's best round counts.
 */
async function measure(opt) {
  const pairs = [];
  for (const batch of opt.batches) for (const mode of opt.modes) pairs.push(openPair(mode, batch, opt));
  try {
    for (let round = 0; round <= opt.rounds; round++) {
      for (const pair of pairs) {
        const r = await pair.round();
        if (round > 0) pair.times.push(r);
      }
    }
  } finally {
    await Promise.all(pairs.map((p) => p.close()));
  }
  return pairs.map(({ mode, batch, perRecord, times }) => {
    const best = times.reduce((x, y) => (y.ms < x.ms ? y : x));
    const recordsPerSec = opt.records / (best.ms / 1000);
    return {
      mode,
      batch,
      recordsPerSec: Math.round(recordsPerSec),
      mbPerSec: Number(((recordsPerSec * perRecord) / 1e6).toFixed(1)),
      wireBytesPerRecord: Number(perRecord.toFixed(1)),
      // How busy each thread's event loop was in the best round: the one near 1 is the limit.
      producerBusy: Number(best.producerBusy.toFixed(2)),
      consumerBusy: Number(best.consumerBusy.toFixed(2)),
      runsMs: times.map((t) => Math.round(t.ms)),
    };
  });
}

function parseArgs(argv) {
  const o = { records: 300_000, rounds: 5, inflight: 4096, batches: [256, 1024], modes: MODES };
  for (let i = 0; i < argv.length; i++) {
    const [a, v] = [argv[i], argv[++i]];
    if (a === '--records' || a === '--rounds' || a === '--inflight') o[a.slice(2)] = Number(v);
    else if (a === '--batches') o.batches = String(v).split(',').map(Number);
    else if (a === '--modes') o.modes = String(v).split(',');
    else throw new Error(`unknown argument ${a}`);
  }
  const bad = o.modes.filter((m) => !MODES.includes(m));
  if (bad.length) throw new Error(`unknown mode ${bad.join(',')} (modes: ${MODES.join(',')})`);
  return o;
}

/**
 * Each side's work alone, on one thread (no scheduling between threads in it): ns per record to
 * make a batch's message and to take it apart, for structured clone (V8's serializer, the format
 * postMessage uses) and for the bytes. Best of 5 rounds of `records` records.
 */
function codecCost(batch, records) {
  const pool = makePool();
  const items = [];
  for (let i = 0; i < batch; i++) items.push(pool[(i * 5) & (POOL - 1)]);
  const iterations = Math.max(1, Math.round(records / batch));
  const time = (fn) => {
    let best = Number.POSITIVE_INFINITY;
    let sink = 0;
    for (let round = 0; round < 5; round++) {
      const t0 = performance.now();
      for (let i = 0; i < iterations; i++) sink += fn() ? 1 : 0;
      best = Math.min(best, performance.now() - t0);
    }
    if (sink === -1) process.stderr.write('unreachable\n');
    return Number(((best * 1e6) / (iterations * batch)).toFixed(0));
  };
  const cloned = serialize(items);
  const bytes = encoder.encode(encodeText(items)).buffer;
  const consume = (list) => {
    let check = 0;
    for (let i = 0; i < list.length; i++) check = (check + work(list[i])) | 0;
    return check;
  };
  return {
    batch,
    cloneEncodeNs: time(() => serialize(items).length),
    cloneDecodeNs: time(() => consume(deserialize(cloned))),
    bytesEncodeNs: time(() => encoder.encode(encodeText(items)).length),
    bytesDecodeNs: time(() => consume(decodeText(Buffer.from(bytes).toString()))),
  };
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const codec = opt.batches.map((batch) => codecCost(batch, opt.records));
  const rows = await measure(opt);
  const line = (cells) => `${cells.map((c, i) => String(c).padStart(i < 2 ? 10 : 12)).join(' ')}\n`;
  process.stderr.write(
    line(['mode', 'batch', 'records/s', 'MB/s', 'B/record', 'vs clone', 'prod busy', 'cons busy']),
  );
  for (const r of rows) {
    const clone = rows.find((x) => x.mode === 'clone' && x.batch === r.batch);
    const vs = clone ? `${(r.recordsPerSec / clone.recordsPerSec).toFixed(2)}x` : '';
    process.stderr.write(
      line([
        r.mode,
        r.batch,
        r.recordsPerSec.toLocaleString('en-US'),
        r.mbPerSec,
        r.wireBytesPerRecord,
        vs,
        r.producerBusy,
        r.consumerBusy,
      ]),
    );
  }
  process.stderr.write('\nns per record on one thread: make the message / take it apart (with the work)\n');
  for (const c of codec) {
    process.stderr.write(
      `  batch ${c.batch}: structured clone ${c.cloneEncodeNs} / ${c.cloneDecodeNs}, ` +
        `bytes ${c.bytesEncodeNs} / ${c.bytesDecodeNs}\n`,
    );
  }
  const { records, rounds, inflight } = opt;
  process.stdout.write(`${JSON.stringify({ records, rounds, inflight, rows, codec })}\n`);
}

if (isMainThread) await main();
else if (workerData.role === 'producer') producerMain(workerData);
else consumerMain(workerData);
