#!/usr/bin/env node
// Micro-benchmark: the cross-thread codec of engine/runtime/batchCodec.ts (from dist/: run
// `npm run build` first) against the one it replaced, each side alone on this thread, in ns per
// record. Two kinds of batch, as the keyed bench job sends them: records a source.jsonl read (a
// key, and the line's text kept: Envelope.text) and records user code emitted (no key, no text),
// the latter also into a sink.jsonl on the other side (sent as the text the sink writes; before,
// the sink's JSON.stringify is counted in "decode before").
//   before   every envelope an array [value, keyGroup, timestamp, source, position, key?], the
//            batch one JSON.stringify / JSON.parse
//   now      the envelopes' numbers in a Float64Array, values and keys one JSON array, the lines'
//            texts joined into a second one (not encoded again)
//   node bench/micro/envelopeCodec.mjs [--batch 256] [--rounds 5]
import { performance } from 'node:perf_hooks';
import { BatchDecoder, BatchEncoder } from '../../dist/engine/runtime/batchCodec.js';
import { envelope } from '../../dist/engine/runtime/envelope.js';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const BATCH = option('--batch', 256);
const ROUNDS = option('--rounds', 5);
const RECORDS = 1_000_000;

const source = { kind: 'file', operatorId: 'src', file: '/data/keyed.jsonl' };
const read = [];
const emitted = [];
for (let i = 0; i < 4096; i++) {
  const k = `key-${(i * 7919) % 100_000}`;
  const text = `{"k":"${k}","v":${(i * 31) % 1000}}`;
  read.push(envelope(JSON.parse(text), k, i % 128, undefined, source, i * 25, text));
  emitted.push(envelope({ k, n: i % 10, sum: i * 3 }, undefined, -1, undefined, source, i * 25));
}

/** The codec before: one JSON text of arrays (sources interned as now). */
const before = {
  encode(items) {
    const row = [0];
    for (const e of items) {
      const r = [e.value, e.keyGroup, e.timestamp ?? null, 0, e.position];
      if (e.key !== undefined) r.push(e.key);
      row.push(r);
    }
    return JSON.stringify([[], row]);
  },
  decode(text) {
    const batch = JSON.parse(text);
    const row = batch[1];
    const items = new Array(row.length - 1);
    for (let i = 1; i < row.length; i++) {
      const r = row[i];
      items[i - 1] = envelope(r[0], r[5], r[1], r[2] ?? undefined, source, r[4]);
    }
    return items;
  },
};

function nsPerRecord(run) {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round <= ROUNDS; round++) {
    const t0 = performance.now();
    for (let done = 0; done < RECORDS; done += BATCH) run(done);
    const ns = ((performance.now() - t0) * 1e6) / RECORDS;
    if (round > 0) best = Math.min(best, ns); // round 0 warms up
  }
  return best;
}

const rows = [];
for (const [kind, pool, asText] of [
  ['read by source.jsonl, keyed', read, false],
  ['emitted by user code', emitted, false],
  ['emitted by user code, into sink.jsonl', emitted, true],
]) {
  const batches = [];
  for (let b = 0; b + BATCH <= pool.length; b += BATCH) batches.push(pool.slice(b, b + BATCH));
  const pick = (done) => (done / BATCH) % batches.length;
  const encoder = new BatchEncoder();
  const decoder = new BatchDecoder();
  const oldText = batches.map((b) => before.encode(b));
  const newBatches = batches.map((b) => encoder.encode([[0, b, asText]]));
  // What a sink.jsonl does with each record it takes: JSON.stringify, or the text it came as.
  const sink = asText
    ? (_, items) => {
        for (const e of items) if (e.text.length === 0) throw new Error('no text');
      }
    : (_, items) => items.length;
  const writeBefore = asText ? (items) => items.map((e) => JSON.stringify(e.value)) : (items) => items;
  rows.push({
    kind,
    encodeBefore: nsPerRecord((d) => before.encode(batches[pick(d)])),
    encodeNow: nsPerRecord((d) => new BatchEncoder().encode([[0, batches[pick(d)], asText]])),
    decodeBefore: nsPerRecord((d) => writeBefore(before.decode(oldText[pick(d)]))),
    decodeNow: nsPerRecord((d) =>
      decoder.decode({ ...newBatches[pick(d)], sources: d === 0 ? [source] : undefined }, sink),
    ),
  });
}
const f = (ns) => ns.toFixed(0);
console.log(`| records (batch ${BATCH}) | encode before | encode now | decode before | decode now |`);
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${r.kind} | ${f(r.encodeBefore)} | ${f(r.encodeNow)} | ${f(r.decodeBefore)} | ${f(r.decodeNow)} |`,
  );
}
